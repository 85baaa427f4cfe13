import {
  chooseMemberToRemove,
  CpuSample,
  decideScaling,
  DEFAULT_SCALING_POLICY,
  MemberCpu,
  RemovalCandidate,
  ScalingInput,
  ScalingPolicy,
  scalingPolicyProblem,
} from './autoscaling.policy';

const NOW = 10_000_000;
const policy: ScalingPolicy = { ...DEFAULT_SCALING_POLICY, minSize: 1, maxSize: 5, windowMs: 60_000, cooldownMs: 180_000, minFill: 0.8 };

/** Samples of one member every 5 s over the last `spanS` seconds, each `fraction`. */
function steady(fraction: number, spanS = 60, everyS = 5): CpuSample[] {
  const samples: CpuSample[] = [];
  for (let t = 0; t < spanS; t += everyS) samples.push({ at: NOW - t * 1000, fraction });
  return samples;
}

function cluster(...fractions: number[]): MemberCpu[] {
  return fractions.map((f, i) => ({ id: `m${i}`, samples: steady(f) }));
}

function input(overrides: Partial<Omit<ScalingInput, 'policy'>> & { policy?: Partial<ScalingPolicy> } = {}): ScalingInput {
  return { now: NOW, desired: 2, lastScaledAt: null, members: cluster(0.5, 0.5), ...overrides, policy: { ...policy, ...overrides.policy } };
}

describe('decideScaling', () => {
  // name, input, expected action, expected desired, reason pattern
  const table: Array<[string, ScalingInput, 'scale_out' | 'scale_in' | 'none', number, RegExp]> = [
    ['busy members get one more', input({ members: cluster(0.8, 0.86) }), 'scale_out', 3, /^average CPU 0\.83 over 60 s above 0\.7: one member added \(2 to 3\)$/],
    ['exactly at the scale-out threshold is not above it', input({ members: cluster(0.7, 0.7) }), 'none', 2, /average CPU 0\.70 over 60 s between 0\.2 and 0\.7/],
    ['idle members lose one', input({ desired: 3, members: cluster(0.05, 0.1, 0.15) }), 'scale_in', 2, /^average CPU 0\.10 over 60 s below 0\.2: one member removed \(3 to 2\)$/],
    ['exactly at the scale-in threshold is not below it', input({ members: cluster(0.2, 0.2) }), 'none', 2, /between 0\.2 and 0\.7/],
    ['in between: nothing', input({ members: cluster(0.3, 0.6) }), 'none', 2, /average CPU 0\.45 over 60 s between 0\.2 and 0\.7/],
    ['never past max_size', input({ desired: 5, members: cluster(0.95, 0.95, 0.95, 0.95, 0.95) }), 'none', 5, /above 0\.7, but already at max_size 5/],
    ['never below min_size', input({ desired: 1, members: cluster(0.01) }), 'none', 1, /below 0\.2, but already at min_size 1/],
    ['min_size 3 holds three idle members', input({ desired: 3, policy: { minSize: 3 }, members: cluster(0, 0, 0) }), 'none', 3, /already at min_size 3/],
    [
      'below a raised min_size: one added, whatever the load',
      input({ desired: 1, policy: { minSize: 3 }, members: cluster(0) }),
      'scale_out',
      2,
      /^1 member below min_size 3: one added$/,
    ],
    ['min_size counts even in the cooldown', input({ desired: 2, policy: { minSize: 3 }, lastScaledAt: NOW - 1_000 }), 'scale_out', 3, /below min_size 3/],
    [
      'above a lowered max_size: one removed, whatever the load',
      input({ desired: 5, policy: { maxSize: 3 }, members: cluster(0.9, 0.9) }),
      'scale_in',
      4,
      /^5 members above max_size 3: one removed$/,
    ],
    [
      'in the cooldown: nothing, however busy',
      input({ lastScaledAt: NOW - 60_000, members: cluster(0.99, 0.99) }),
      'none',
      2,
      /^cooling down: last scaled 60 s ago, cooldown 180 s$/,
    ],
    ['the cooldown over: acts', input({ lastScaledAt: NOW - 180_000, members: cluster(0.99, 0.99) }), 'scale_out', 3, /above 0\.7/],
    [
      'custom thresholds',
      input({ policy: { scaleOutThreshold: 0.5, scaleInThreshold: 0.4 }, members: cluster(0.55, 0.55) }),
      'scale_out',
      3,
      /average CPU 0\.55 over 60 s above 0\.5/,
    ],
    ['no samples: nothing', input({ members: [] }), 'none', 2, /^not enough CPU samples yet: a member needs 48 s of the 60 s window$/],
    ['a window not full enough: nothing', input({ members: [{ id: 'a', samples: steady(0.99, 30) }] }), 'none', 2, /not enough CPU samples yet/],
    [
      'samples that stopped long ago: nothing',
      input({ members: [{ id: 'a', samples: steady(0.99).map((s) => ({ ...s, at: s.at - 20_000 })) }] }),
      'none',
      2,
      /not enough CPU samples/,
    ],
    [
      'samples older than the window are ignored',
      input({ members: [{ id: 'a', samples: [...steady(0.9), { at: NOW - 70_000, fraction: 0 }, { at: NOW - 90_000, fraction: 0 }] }] }),
      'scale_out',
      3,
      /average CPU 0\.90/,
    ],
    [
      'a member that just booted is left out of the average',
      input({ members: [...cluster(0.8, 0.8), { id: 'new', samples: steady(0, 10) }] }),
      'scale_out',
      3,
      /average CPU 0\.80/,
    ],
    [
      'a scale-in that would push the rest over the scale-out threshold waits',
      input({ desired: 2, policy: { scaleInThreshold: 0.4 }, members: cluster(0.38, 0.38) }),
      'none',
      2,
      /but 1 member would average 0\.76, above 0\.7/,
    ],
    [
      'the same load on three members may lose one',
      input({ desired: 3, policy: { scaleInThreshold: 0.4 }, members: cluster(0.38, 0.38, 0.38) }),
      'scale_in',
      2,
      /below 0\.4: one member removed \(3 to 2\)/,
    ],
    ['more than one core busy (no limits) is load too', input({ members: cluster(1.6, 1.2) }), 'scale_out', 3, /average CPU 1\.40/],
  ];

  it.each(table)('%s', (_name, given, action, desired, reason) => {
    const decision = decideScaling(given);
    expect(decision).toMatchObject({ action, desired });
    expect(decision.reason).toMatch(reason);
  });

  it('moves at most one member per decision, from any size and load', () => {
    for (let desired = 0; desired <= 8; desired++) {
      for (const load of [0, 0.1, 0.5, 0.9, 2]) {
        const d = decideScaling(input({ desired, members: cluster(...Array.from({ length: Math.max(desired, 1) }, () => load)) }));
        expect(Math.abs(d.desired - desired)).toBeLessThanOrEqual(1);
        if (d.action === 'none') expect(d.desired).toBe(desired);
        if (d.action === 'scale_out') expect(d.desired).toBe(desired + 1);
        if (d.action === 'scale_in') expect(d.desired).toBe(desired - 1);
        // Within the bounds it never steps outside them.
        if (desired >= policy.minSize && desired <= policy.maxSize) {
          expect(d.desired).toBeGreaterThanOrEqual(policy.minSize);
          expect(d.desired).toBeLessThanOrEqual(policy.maxSize);
        }
      }
    }
  });

  it.each([
    [{ minSize: 3, maxSize: 2 }, 'max_size', /at least min_size/],
    [{ minSize: -1 }, 'min_size', /0 or more/],
    [{ minSize: 1.5 }, 'min_size', /whole number/],
    [{ maxSize: 0, minSize: 0 }, 'max_size', /1 or more/],
    [{ scaleOutThreshold: 0 }, 'scale_out_threshold', /above 0/],
    [{ scaleOutThreshold: 1.2 }, 'scale_out_threshold', /at most 1/],
    [{ scaleInThreshold: NaN }, 'scale_in_threshold', /fraction/],
    [{ scaleInThreshold: 0.7, scaleOutThreshold: 0.7 }, 'scale_in_threshold', /below scale_out_threshold/],
    [{ windowMs: 0 }, 'policy', /positive/],
  ])('refuses the policy %j naming %s', (bad, field, message) => {
    const problem = scalingPolicyProblem({ ...policy, ...bad });
    expect(problem).toMatchObject({ field });
    expect(problem!.message).toMatch(message);
    expect(() => decideScaling(input({ policy: bad }))).toThrow(RangeError);
  });

  it('accepts the defaults, and refuses a desired size that is not a count', () => {
    expect(scalingPolicyProblem(DEFAULT_SCALING_POLICY)).toBeNull();
    expect(DEFAULT_SCALING_POLICY).toMatchObject({ scaleOutThreshold: 0.7, scaleInThreshold: 0.2, minSize: 1, maxSize: 5 });
    expect(() => decideScaling(input({ desired: -1 }))).toThrow(RangeError);
    expect(() => decideScaling(input({ desired: 2.5 }))).toThrow(RangeError);
  });
});

describe('chooseMemberToRemove', () => {
  const m = (id: string, createdAt: number, overrides: Partial<RemovalCandidate> = {}): RemovalCandidate => ({ id, createdAt, ready: true, connections: 0, ...overrides });

  it.each([
    ['nothing to choose from', [], null],
    ['the newest of equals', [m('a', 1), m('b', 3), m('c', 2)], 'b'],
    ['one that does not serve yet, before any that does', [m('a', 1), m('b', 3, { connections: 0 }), m('c', 2, { ready: false, connections: 9 })], 'c'],
    ['the fewest connections, before the newest', [m('a', 1, { connections: 2 }), m('b', 3, { connections: 5 }), m('c', 2, { connections: 2 })], 'c'],
    ['an unknown count after every known one', [m('a', 1, { connections: 40 }), m('b', 3, { connections: null })], 'a'],
    ['unknown counts alike: the newest', [m('a', 1, { connections: null }), m('b', 3, { connections: null })], 'b'],
    ['a kept member never, even when newest and idle', [m('a', 1, { connections: 3 }), m('b', 3, { keep: true })], 'a'],
    ['every member kept: none', [m('a', 1, { keep: true })], null],
    ['the same time: the id decides, whatever the order given', [m('b', 1), m('a', 1), m('c', 1)], 'c'],
  ] as Array<[string, RemovalCandidate[], string | null]>)('%s', (_name, candidates, expected) => {
    expect(chooseMemberToRemove(candidates)).toBe(expected);
    expect(chooseMemberToRemove([...candidates].reverse())).toBe(expected);
  });
});
