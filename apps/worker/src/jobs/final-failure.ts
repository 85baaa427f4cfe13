import { OnWorkerEvent } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';

const logger = new Logger('jobs');

/** Whether the job has no attempt left: BullMQ fails it for good. */
function finallyFailed(job: Job | undefined): job is Job {
  return job !== undefined && job.attemptsMade >= (job.opts.attempts ?? 1);
}

/**
 * The method says what a resource becomes when its job's last attempt
 * failed. It runs as BullMQ's `failed` listener, which nothing awaits: an
 * error thrown there (PostgreSQL gone since the last attempt failed on
 * something else; a job that fails on PostgreSQL itself waits for it, see
 * OwnDatabase) would be an unhandled rejection and end the worker process,
 * and every job failing for good during the outage would end the next
 * one. So it is logged instead; the row keeps its status and its
 * reconciler runs the failed job again (ensureJob), which ends it
 * either way once PostgreSQL answers. Earlier attempts do not call it.
 */
export function OnFinalFailure(): MethodDecorator {
  return (target, key, descriptor: PropertyDescriptor) => {
    const recordFailure = descriptor.value as (job: Job, err: Error) => Promise<void>;
    descriptor.value = async function (this: unknown, job: Job | undefined, err: Error): Promise<void> {
      if (!finallyFailed(job)) return;
      try {
        await recordFailure.call(this, job, err);
      } catch (failure) {
        logger.error({ job: job.id, job_name: job.name, err: String(failure), cause: err.message }, 'could not record a final job failure; the reconciler runs the job again');
      }
    };
    OnWorkerEvent('failed')(target, key, descriptor);
  };
}
