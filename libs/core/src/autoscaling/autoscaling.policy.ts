/**
 * When a cluster grows or shrinks, as a pure function of what was measured:
 * no clock, no database, no driver. The worker samples its members' CPU
 * (cpu-fraction.ts), keeps a sliding window of those fractions, and asks
 * `decideScaling` what to do; it acts on the answer and records when.
 */

/** One member's CPU over one sampling interval, as a fraction of its flavor (cpuFraction), taken at `at` (ms). */
export interface CpuSample {
  at: number;
  fraction: number;
}

export interface MemberCpu {
  id: string;
  /** Its recent samples, in any order; those outside the window are ignored. */
  samples: CpuSample[];
}

export interface ScalingPolicy {
  /** Average CPU fraction above which a member is added (SPEC default 0.7). */
  scaleOutThreshold: number;
  /** Average CPU fraction below which a member is removed (SPEC default 0.2). */
  scaleInThreshold: number;
  minSize: number;
  maxSize: number;
  /** How far back the average looks. */
  windowMs: number;
  /** How long after a scaling action the next waits, so a new member's effect is seen first. */
  cooldownMs: number;
  /**
   * How much of the window a member's samples must span before it counts
   * (0 to 1): a member that has just booted has no history, and one whose
   * sampling stopped has none that is recent.
   */
  minFill: number;
}

/** SPEC's thresholds and sizes; the window, cooldown and fill are ours (docs/decisions.md). */
export const DEFAULT_SCALING_POLICY: ScalingPolicy = {
  scaleOutThreshold: 0.7,
  scaleInThreshold: 0.2,
  minSize: 1,
  maxSize: 5,
  windowMs: 60_000,
  cooldownMs: 180_000,
  minFill: 0.8,
};

export interface ScalingInput {
  policy: ScalingPolicy;
  /** Now, in ms (the caller's clock: the function reads none). */
  now: number;
  /** Members the cluster wants now. */
  desired: number;
  /** When the last scaling action was taken (ms); null when never. */
  lastScaledAt: number | null;
  members: MemberCpu[];
}

export type ScalingAction = 'scale_out' | 'scale_in' | 'none';

export interface ScalingDecision {
  action: ScalingAction;
  /** Members the cluster should want after this decision (equal to the input's when `none`). */
  desired: number;
  /** A sentence for the cluster's status and log, naming the numbers it was decided on. */
  reason: string;
}

/** What is wrong with a policy, by its API field name; null when nothing is. One place for the rule, for the API's 400 and for the worker alike. */
export function scalingPolicyProblem(p: ScalingPolicy): { field: string; message: string } | null {
  const fraction = (v: number) => Number.isFinite(v) && v > 0 && v <= 1;
  if (!Number.isInteger(p.minSize) || p.minSize < 0) return { field: 'min_size', message: 'min_size must be a whole number, 0 or more' };
  if (!Number.isInteger(p.maxSize) || p.maxSize < 1) return { field: 'max_size', message: 'max_size must be a whole number, 1 or more' };
  if (p.maxSize < p.minSize) return { field: 'max_size', message: `max_size (${p.maxSize}) must be at least min_size (${p.minSize})` };
  if (!fraction(p.scaleOutThreshold)) return { field: 'scale_out_threshold', message: 'scale_out_threshold must be a CPU fraction above 0 and at most 1' };
  if (!fraction(p.scaleInThreshold)) return { field: 'scale_in_threshold', message: 'scale_in_threshold must be a CPU fraction above 0 and at most 1' };
  if (p.scaleInThreshold >= p.scaleOutThreshold) {
    return { field: 'scale_in_threshold', message: `scale_in_threshold (${p.scaleInThreshold}) must be below scale_out_threshold (${p.scaleOutThreshold})` };
  }
  if (!(p.windowMs > 0) || !(p.cooldownMs >= 0) || !(p.minFill > 0 && p.minFill <= 1)) return { field: 'policy', message: 'window, cooldown and fill must be positive' };
  return null;
}

/**
 * What to do now: at most one member more or less than `desired` (members
 * are built one at a time), never past max_size nor below min_size.
 * A desired size outside the bounds (the bounds changed) is brought one step
 * back towards them whatever the load or the cooldown. Otherwise, within the
 * cooldown nothing happens; then the average CPU over the window of the
 * members whose samples fill enough of it decides. A scale-in that would push
 * the members left above the scale-out threshold is not made (it would be
 * undone at once).
 */
export function decideScaling(input: ScalingInput): ScalingDecision {
  const { policy: p, now, desired } = input;
  const problem = scalingPolicyProblem(p);
  if (problem) throw new RangeError(problem.message);
  if (!Number.isInteger(desired) || desired < 0) throw new RangeError(`desired must be a whole number, 0 or more; got ${desired}`);
  const none = (reason: string): ScalingDecision => ({ action: 'none', desired, reason });

  if (desired < p.minSize) return { action: 'scale_out', desired: desired + 1, reason: `${members(desired)} below min_size ${p.minSize}: one added` };
  if (desired > p.maxSize) return { action: 'scale_in', desired: desired - 1, reason: `${members(desired)} above max_size ${p.maxSize}: one removed` };

  if (input.lastScaledAt !== null && now - input.lastScaledAt < p.cooldownMs) {
    return none(`cooling down: last scaled ${seconds(now - input.lastScaledAt)} ago, cooldown ${seconds(p.cooldownMs)}`);
  }

  const averages = input.members.map((m) => memberAverage(m, now, p)).filter((a): a is number => a !== null);
  if (averages.length === 0) {
    return none(`not enough CPU samples yet: a member needs ${seconds(p.minFill * p.windowMs)} of the ${seconds(p.windowMs)} window`);
  }
  // Rounded past any meaning a CPU counter has, so a load exactly at a threshold compares as exactly at it.
  const average = Math.round((averages.reduce((a, b) => a + b, 0) / averages.length) * 1e9) / 1e9;
  const over = `average CPU ${fixed(average)} over ${seconds(p.windowMs)}`;

  if (average > p.scaleOutThreshold) {
    if (desired >= p.maxSize) return none(`${over} above ${p.scaleOutThreshold}, but already at max_size ${p.maxSize}`);
    return { action: 'scale_out', desired: desired + 1, reason: `${over} above ${p.scaleOutThreshold}: one member added (${desired} to ${desired + 1})` };
  }
  if (average < p.scaleInThreshold) {
    if (desired <= p.minSize) return none(`${over} below ${p.scaleInThreshold}, but already at min_size ${p.minSize}`);
    // The same work on one member fewer. desired > minSize >= 0, so desired >= 1; with 1 left, nothing to spread.
    const projected = desired > 1 ? (average * desired) / (desired - 1) : 0;
    if (projected > p.scaleOutThreshold) {
      return none(`${over} below ${p.scaleInThreshold}, but ${members(desired - 1)} would average ${fixed(projected)}, above ${p.scaleOutThreshold}`);
    }
    return { action: 'scale_in', desired: desired - 1, reason: `${over} below ${p.scaleInThreshold}: one member removed (${desired} to ${desired - 1})` };
  }
  return none(`${over} between ${p.scaleInThreshold} and ${p.scaleOutThreshold}`);
}

/** A member's mean CPU over the window, or null when its samples there span less than minFill of it. */
function memberAverage(member: MemberCpu, now: number, p: ScalingPolicy): number | null {
  const inWindow = member.samples.filter((s) => s.at > now - p.windowMs && s.at <= now && Number.isFinite(s.fraction));
  if (inWindow.length === 0) return null;
  const times = inWindow.map((s) => s.at);
  // The span between its first and last sample: a fresh member has a short one, a silent one a stale last sample.
  const oldest = Math.min(...times);
  const newest = Math.max(...times);
  if (now - oldest < p.minFill * p.windowMs || newest < now - (1 - p.minFill) * p.windowMs) return null;
  return inWindow.reduce((sum, s) => sum + s.fraction, 0) / inWindow.length;
}

/** A member a scale-in may remove, with what the worker knows of it. */
export interface RemovalCandidate {
  id: string;
  /** When it was created (ms). */
  createdAt: number;
  /** It serves (is in the load balancer's pool, healthy). */
  ready: boolean;
  /** Connections the load balancer has open to it now; null when unknown. */
  connections: number | null;
  /** Never removed by a scale-in (the instance a cluster was made from keeps running). */
  keep?: boolean;
}

/**
 * Which member a scale-in removes: one that does not serve yet costs no
 * one anything; then the one with the fewest open connections (an unknown
 * count goes after every known one); then the newest, which has the least
 * warmed up and leaves the oldest, longest-proven members; the id settles
 * the rest, so two workers choose the same. Null when every member is kept.
 */
export function chooseMemberToRemove(candidates: RemovalCandidate[]): string | null {
  const removable = candidates.filter((c) => !c.keep);
  if (removable.length === 0) return null;
  const connections = (c: RemovalCandidate) => c.connections ?? Infinity;
  const [chosen] = [...removable].sort(
    (a, b) =>
      Number(a.ready) - Number(b.ready) ||
      (connections(a) === connections(b) ? 0 : connections(a) < connections(b) ? -1 : 1) ||
      b.createdAt - a.createdAt ||
      (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
  return chosen.id;
}

function members(n: number): string {
  return `${n} ${n === 1 ? 'member' : 'members'}`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function fixed(n: number): string {
  return n.toFixed(2);
}
