import { PendingJob, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';

/**
 * Level-based repair of a row's job: enqueued again when Redis lost it,
 * retried when it failed for good. Its id is deterministic, so this never
 * duplicates a job that exists. Returns whether the job had been lost.
 * Bounded: with Redis down a sweep fails at once and its next tick repairs.
 */
export async function ensureJob(queue: Queue, job: PendingJob): Promise<boolean> {
  const existing = await withRedisDeadline(`look up ${job.jobId}`, queue.getJob(job.jobId));
  if (!existing) {
    await withRedisDeadline(`enqueue ${job.jobId}`, queue.add(job.name, job.payload, { jobId: job.jobId }));
    return true;
  }
  // Another worker may retry it first; either way it runs again.
  if (await withRedisDeadline(`state of ${job.jobId}`, existing.isFailed())) await existing.retry('failed').catch(() => undefined);
  return false;
}
