import { StandStill } from '@stratus/core';
import { planRollout, RolloutInput, RolloutMember, rolloutStepText, surgeOf } from './cluster-rollout';

const MINUTE = 60_000;
const now = 100 * MINUTE;

/** A member of spec `gen`, created `ago` ms before now, serving unless told otherwise. */
function member(id: string, gen: number, ago: number, over: Partial<RolloutMember> = {}): RolloutMember {
  return { id, specGeneration: gen, createdAt: now - ago, ready: true, failed: false, connections: 0, leaving: false, ...over };
}

function plan(members: RolloutMember[], desired = 3, specGeneration = 2, stoodStill: StandStill[] = []) {
  const input: RolloutInput = { specGeneration, desired, members, now, readyWithinMs: 10 * MINUTE, stoodStill };
  return planRollout(input);
}

describe('planRollout', () => {
  it('does nothing when every member is of the current spec', () => {
    expect(plan([member('a', 2, 3), member('b', 2, 2), member('c', 2, 1)])).toEqual({ action: 'none' });
    expect(plan([])).toEqual({ action: 'none' });
  });

  it('boots one new member beyond desired_size before any old one goes', () => {
    const step = plan([member('a', 1, 30), member('b', 1, 20), member('c', 1, 10)]);
    expect(step).toEqual({ action: 'surge', old: 3 });
    expect(surgeOf(step)).toBe(1);
  });

  it('waits for the new member to serve, never booting a second one meanwhile', () => {
    const members = [member('a', 1, 30), member('b', 1, 20), member('c', 1, 10), member('n1', 2, 1, { ready: false })];
    const step = plan(members);
    expect(step).toEqual({ action: 'wait', member: 'n1', old: 3 });
    expect(surgeOf(step)).toBe(1);
  });

  it('once the new member serves, drains the old one serving least, then the next', () => {
    const members = [member('a', 1, 30, { connections: 4 }), member('b', 1, 20, { connections: 1 }), member('c', 1, 10, { connections: 4 }), member('n1', 2, 1)];
    const step = plan(members);
    expect(step).toEqual({ action: 'replace', old: 'b', by: 'n1', left: 2 });
    expect(surgeOf(step)).toBe(0);
    // b gone: back to desired_size with two old members, so the next new one boots.
    expect(plan(members.filter((m) => m.id !== 'b'))).toEqual({ action: 'surge', old: 2 });
  });

  it('finishes the drain an earlier run began, even if another old member now serves less', () => {
    const members = [member('a', 1, 30, { connections: 0 }), member('b', 1, 20, { leaving: true, ready: false, connections: 5 }), member('c', 1, 10), member('n1', 2, 1)];
    expect(plan(members)).toEqual({ action: 'replace', old: 'b', by: 'n1', left: 2 });
  });

  it('takes an old member that does not serve before one that does', () => {
    const members = [member('a', 1, 30), member('b', 1, 20, { ready: false, connections: null }), member('n1', 2, 1)];
    expect(plan(members, 2)).toEqual({ action: 'replace', old: 'b', by: 'n1', left: 1 });
  });

  it('replaces the last old member, then has nothing left to do', () => {
    expect(plan([member('n1', 2, 20), member('n2', 2, 10), member('c', 1, 90), member('n3', 2, 1)])).toEqual({ action: 'replace', old: 'c', by: 'n3', left: 0 });
    expect(plan([member('n1', 2, 20), member('n2', 2, 10), member('n3', 2, 1)])).toEqual({ action: 'none' });
  });

  it('replaces members of every older spec (an update made during another)', () => {
    // Among old members alike, chooseMemberToRemove's order: the newest first.
    expect(plan([member('a', 1, 30), member('n1', 2, 10), member('m1', 3, 1)], 2, 3)).toEqual({ action: 'replace', old: 'n1', by: 'm1', left: 1 });
    expect(plan([member('a', 1, 30), member('m1', 3, 1)], 2, 3)).toEqual({ action: 'surge', old: 1 });
    expect(plan([member('a', 1, 30), member('m1', 3, 3), member('m2', 3, 1)], 2, 3)).toEqual({ action: 'replace', old: 'a', by: 'm2', left: 0 });
  });

  it('fails when a new member could not boot, naming it and why, and the old ones stay', () => {
    const members = [member('a', 1, 30), member('b', 1, 20), member('n1', 2, 1, { ready: false, failed: true, failure: 'user_data failed with exit code 7' })];
    expect(plan(members, 2)).toEqual({ action: 'fail', reason: 'new member n1 could not boot: user_data failed with exit code 7', failed: ['n1'] });
  });

  it('fails when a new member does not pass its check in time (it boots without the application)', () => {
    const members = [member('a', 1, 30), member('n1', 2, 11 * MINUTE, { ready: false })];
    expect(plan(members, 1)).toEqual({ action: 'fail', reason: 'new member n1 did not pass its health check within 600 s', failed: ['n1'] });
    // Still within its time: waited for.
    expect(plan([member('a', 1, 30), member('n1', 2, 9 * MINUTE, { ready: false })], 1)).toEqual({ action: 'wait', member: 'n1', old: 1 });
  });

  it('does not count the time the control plane stood still after the member was created', () => {
    const late = [member('a', 1, 30 * MINUTE), member('n1', 2, 11 * MINUTE, { ready: false })];
    // Five minutes of an outage within its eleven: it has waited six.
    expect(plan(late, 1, 2, [{ from: now - 8 * MINUTE, to: now - 3 * MINUTE }])).toEqual({ action: 'wait', member: 'n1', old: 1 });
    // An outage that began before it was created counts from its creation on: two minutes of it.
    expect(plan(late, 1, 2, [{ from: now - 20 * MINUTE, to: now - 9 * MINUTE }])).toEqual({ action: 'wait', member: 'n1', old: 1 });
    // One that ended before it was created does not count at all.
    expect(plan(late, 1, 2, [{ from: now - 20 * MINUTE, to: now - 12 * MINUTE }])).toMatchObject({ action: 'fail', failed: ['n1'] });
  });

  it('ignores an old member that failed: healing replaces it, the rollout does not count it', () => {
    expect(plan([member('a', 1, 30, { failed: true, ready: false }), member('n1', 2, 1)], 1)).toEqual({ action: 'none' });
  });

  it('grows with new members when below desired_size (a member lost meanwhile), one at a time', () => {
    expect(plan([member('a', 1, 30)], 3)).toEqual({ action: 'surge', old: 1 });
    expect(plan([member('a', 1, 30), member('n1', 2, 1, { ready: false })], 3)).toEqual({ action: 'wait', member: 'n1', old: 1 });
  });

  it('says what it does', () => {
    expect(rolloutStepText({ action: 'surge', old: 3 }, 'id-1')).toBe('rolling update: booting a new member (id-1); 3 old member(s) left');
    expect(rolloutStepText({ action: 'wait', member: 'n1', old: 2 })).toBe('rolling update: new member n1 booting; 2 old member(s) left');
    expect(rolloutStepText({ action: 'replace', old: 'a', by: 'n1', left: 1 }, 'draining (0 connection(s) open)')).toBe(
      'rolling update: removing old member a: draining (0 connection(s) open); 1 more after it',
    );
    expect(rolloutStepText({ action: 'none' })).toBeNull();
  });
});
