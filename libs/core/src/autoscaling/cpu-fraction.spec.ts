import { cpuFraction } from './cpu-fraction';

describe('cpuFraction', () => {
  it.each([
    // prev cpu, prev at, next cpu, next at, vcpus, expected
    [10, 0, 10, 5_000, 1, 0],
    [10, 0, 14, 5_000, 1, 0.8],
    [10, 0, 14, 5_000, 2, 0.4],
    [0, 1_000, 2, 2_000, 2, 1],
    [0, 0, 3, 1_000, 2, 1.5],
    [100.5, 60_000, 100.75, 61_000, 1, 0.25],
  ])('%d s at %d ms then %d s at %d ms on %d vcpu: %d', (c0, t0, c1, t1, vcpus, expected) => {
    expect(cpuFraction({ cpuSeconds: c0, at: t0 }, { cpuSeconds: c1, at: t1 }, vcpus)).toBeCloseTo(expected, 10);
  });

  it('says nothing when no time passed or the counter started over', () => {
    expect(cpuFraction({ cpuSeconds: 1, at: 5 }, { cpuSeconds: 2, at: 5 }, 1)).toBeNull();
    expect(cpuFraction({ cpuSeconds: 1, at: 6 }, { cpuSeconds: 2, at: 5 }, 1)).toBeNull();
    expect(cpuFraction({ cpuSeconds: 50, at: 0 }, { cpuSeconds: 0.2, at: 1_000 }, 1)).toBeNull();
  });

  it('refuses a flavor without vcpus', () => {
    expect(() => cpuFraction({ cpuSeconds: 0, at: 0 }, { cpuSeconds: 1, at: 1_000 }, 0)).toThrow(RangeError);
    expect(() => cpuFraction({ cpuSeconds: 0, at: 0 }, { cpuSeconds: 1, at: 1_000 }, NaN)).toThrow(RangeError);
  });
});
