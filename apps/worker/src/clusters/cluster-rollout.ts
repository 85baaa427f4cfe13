import { chooseMemberToRemove, StandStill, workedMs } from '@stratus/core';

/**
 * A rolling update (SPEC rule 1: "updates replace members one at a time"),
 * as a pure decision over what the converge job observed: no clock, no
 * database, no driver. A member whose spec_generation is not the cluster's
 * is old. One new member is booted beyond desired_size; once it runs and
 * passes the balancer's check, one old member is drained and removed; then
 * the next. So the cluster never has fewer serving members than before the
 * update, and never more than one new member booting.
 */

/** A member as the rollout weighs it. Members whose instance is already being deleted are left out by the caller. */
export interface RolloutMember {
  id: string;
  specGeneration: number;
  /** When it was created (ms). */
  createdAt: number;
  /** It runs and passes the balancer's check. */
  ready: boolean;
  /** Its instance failed (it could not boot); `failure` says why. */
  failed: boolean;
  failure?: string | null;
  /** Connections the balancer has open to it now; null when unknown. */
  connections: number | null;
  /** The balancer is already letting it go (an earlier run chose it). */
  leaving: boolean;
}

export interface RolloutInput {
  /** The cluster's spec_generation: what every member should have been built from. */
  specGeneration: number;
  desired: number;
  members: RolloutMember[];
  /** Now, in ms (the caller's clock). */
  now: number;
  /** How long a new member may take to pass its check before the update gives up on it. */
  readyWithinMs: number;
  /**
   * When the control plane stood still (the work clock's): that time does
   * not count against readyWithinMs, as it does not against a build's
   * deadline. The processor reads them only when a plan without them
   * fails (reading costs a beat of the clock) and plans again with them.
   */
  stoodStill: readonly StandStill[];
}

export type RolloutStep =
  /** Every member is of the cluster's spec: nothing to roll. */
  | { action: 'none' }
  /** A new member failed or never became ready: the update stops there, the old members keep serving. */
  | { action: 'fail'; reason: string; failed: string[] }
  /** Boot one new member beyond desired_size. */
  | { action: 'surge'; old: number }
  /** The new member `member` is not serving yet: wait for it. */
  | { action: 'wait'; member: string; old: number }
  /** Drain `old` and remove it; `by` is the new member that took its place (null when one too many was left anyway). */
  | { action: 'replace'; old: string; by: string | null; left: number };

/** The members a rolling update adds beyond desired_size while it runs: one, while booting or waiting for it. */
export function surgeOf(step: RolloutStep): number {
  return step.action === 'surge' || step.action === 'wait' ? 1 : 0;
}

export function planRollout(input: RolloutInput): RolloutStep {
  const { specGeneration, desired, members, now, readyWithinMs, stoodStill } = input;
  const old = members.filter((m) => m.specGeneration !== specGeneration && !m.failed);
  if (old.length === 0) return { action: 'none' };
  const fresh = members.filter((m) => m.specGeneration === specGeneration);

  const failed = fresh.filter((m) => m.failed);
  if (failed.length > 0) {
    const [first] = failed;
    return { action: 'fail', reason: `new member ${first.id} could not boot${first.failure ? `: ${first.failure}` : ''}`, failed: failed.map((m) => m.id) };
  }
  const late = fresh.filter((m) => !m.ready && workedMs(m.createdAt, now, stoodStill) > readyWithinMs);
  if (late.length > 0) {
    return {
      action: 'fail',
      reason: `new member ${late[0].id} did not pass its health check within ${Math.round(readyWithinMs / 1000)} s`,
      failed: late.map((m) => m.id),
    };
  }

  // A drain under way is finished before anything else starts.
  const draining = old.find((m) => m.leaving);
  if (draining) return { action: 'replace', old: draining.id, by: newestReady(fresh), left: old.length - 1 };
  const pending = fresh.find((m) => !m.ready);
  if (pending) return { action: 'wait', member: pending.id, old: old.length };

  const live = members.filter((m) => !m.failed);
  if (live.length <= desired) return { action: 'surge', old: old.length };
  // One more than desired and every new member serves: an old one goes, the one that serves least first.
  const chosen = chooseMemberToRemove(old.map((m) => ({ id: m.id, createdAt: m.createdAt, ready: m.ready, connections: m.connections })));
  return { action: 'replace', old: chosen ?? old[0].id, by: newestReady(fresh), left: old.length - 1 };
}

function newestReady(fresh: RolloutMember[]): string | null {
  const ready = fresh.filter((m) => m.ready).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  return ready[0]?.id ?? null;
}

/** The step the cluster shows while a rollout runs. */
export function rolloutStepText(step: RolloutStep, detail = ''): string | null {
  switch (step.action) {
    case 'surge':
      return `rolling update: booting a new member${detail ? ` (${detail})` : ''}; ${step.old} old member(s) left`;
    case 'wait':
      return `rolling update: new member ${step.member} ${detail || 'booting'}; ${step.old} old member(s) left`;
    case 'replace':
      return `rolling update: removing old member ${step.old}${detail ? `: ${detail}` : ''}; ${step.left} more after it`;
    default:
      return null;
  }
}
