import { CpuSample } from './autoscaling.policy';
import { CpuCounter, cpuFraction } from './cpu-fraction';

/**
 * What the sampler keeps of one member between ticks (cluster_members.cpu):
 * its last cumulative reading, to turn the next into a fraction, and the
 * fractions of the scaling window. Kept in the database rather than in a
 * worker's memory so a restarted worker, or another one, goes on from it.
 */
export interface CpuWindow {
  last: CpuCounter | null;
  samples: CpuSample[];
}

/**
 * The window after one more reading: a fraction for the interval since the
 * last reading, samples older than the window dropped. No reading (the
 * member does not run now) keeps the last one and only trims. A counter that
 * went backwards (the member restarted) or a gap longer than the window (no
 * sampling meanwhile) gives no fraction: the reading is only the new start,
 * as a fraction averaged over so long would say nothing of the load now.
 */
export function advanceCpuWindow(prev: CpuWindow | null, reading: CpuCounter | undefined, vcpus: number, windowMs: number, now: number): CpuWindow {
  const kept = (samples: CpuSample[]) => samples.filter((s) => s.at > now - windowMs && s.at <= now);
  const samples = kept(prev?.samples ?? []);
  if (!reading) return { last: prev?.last ?? null, samples };
  const last = prev?.last ?? null;
  if (last && reading.at <= last.at) return { last, samples };
  const fraction = last && reading.at - last.at <= windowMs ? cpuFraction(last, reading, vcpus) : null;
  return { last: reading, samples: fraction === null ? samples : kept([...samples, { at: reading.at, fraction }]) };
}
