import { DelayedError, Job } from 'bullmq';

/**
 * The resource is still coming up (a server booting, a database server
 * starting): its job goes back to the delayed set and looks again, so no
 * worker slot is held while a provider works.
 */
export class NotReadyYet extends Error {}

export interface RecheckDelays {
  /** The job looks again after this share of the time it has existed... */
  share: number;
  /** ...within these bounds: quick starts are seen quickly, long ones cost few polls. */
  minMs: number;
  maxMs: number;
}

/**
 * Runs `step`; a NotReadyYet from it delays the job without spending an
 * attempt (the provider's start timeout, not the attempts, bounds the wait)
 * and throws BullMQ's DelayedError, as BullMQ asks of a processor that moved
 * its own job. Without a token (a job run outside a worker) it is rethrown.
 */
export async function delayWhileNotReady(job: Job, token: string | undefined, delays: RecheckDelays, step: () => Promise<unknown>): Promise<unknown> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof NotReadyYet) || !token) throw err;
    const waited = Date.now() - job.timestamp;
    const next = Math.min(delays.maxMs, Math.max(delays.minMs, waited * delays.share));
    await job.moveToDelayed(Date.now() + next, token);
    throw new DelayedError();
  }
}
