/** Cumulative CPU time of one instance at a moment, as a compute driver's `usage` reports it. */
export interface CpuCounter {
  /** CPU time used since the instance started, in seconds (all cores added up). */
  cpuSeconds: number;
  /** When it was read, in milliseconds since the epoch. */
  at: number;
}

/**
 * The share of its flavor an instance used between two readings: 1 is every
 * vCPU busy for the whole interval. Null when the two readings say nothing:
 * no time passed between them, or the counter went backwards (the instance
 * was booted again, and its processes' times started over).
 *
 * Not capped at 1: where the provider cannot hold an instance to its flavor
 * it may use more than it was given, and a policy should see that as load.
 */
export function cpuFraction(prev: CpuCounter, next: CpuCounter, vcpus: number): number | null {
  if (!(vcpus > 0)) throw new RangeError(`vcpus must be positive, got ${vcpus}`);
  const seconds = (next.at - prev.at) / 1000;
  const used = next.cpuSeconds - prev.cpuSeconds;
  if (!(seconds > 0) || used < 0) return null;
  return used / seconds / vcpus;
}
