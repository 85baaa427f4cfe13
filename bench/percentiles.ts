/**
 * The `q` quantile (0 < q <= 1) of `samples` by nearest rank: the smallest
 * sample with at least q of them at or below it, so every figure a bench
 * prints is a time that was measured, never an interpolation.
 */
export function nearestRank(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** p50, p95 and max of `ms`, in whole milliseconds (by nearest rank), and how many. */
export function latencySummary(ms: number[]): { n: number; p50_ms: number; p95_ms: number; max_ms: number } {
  return { n: ms.length, p50_ms: Math.round(nearestRank(ms, 0.5)), p95_ms: Math.round(nearestRank(ms, 0.95)), max_ms: Math.round(nearestRank(ms, 1)) };
}

/** `n` to `digits` decimals: what every bench prints. */
export function round(n: number, digits = 2): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}
