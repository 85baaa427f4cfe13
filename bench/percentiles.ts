/**
 * The `q` quantile (0 < q <= 1) of `samples` by nearest rank: the smallest
 * sample with at least q of them at or below it, so every figure a bench
 * prints is a time that was measured, never an interpolation.
 */
export function nearestRank(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
