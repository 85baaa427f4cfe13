import { readFileSync } from 'node:fs';

/** Busy and total CPU time of the whole machine (all cores), in seconds, from /proc/stat; idle and iowait are not busy. */
export function machineCpu(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3] + ticks[4];
  return { busy: (total - idle) / 100, total: total / 100 };
}
