import { Injectable, Logger as NestLogger } from '@nestjs/common';
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { Logger, PinoLogger } from 'nestjs-pino';
import { storage, Store } from 'nestjs-pino/storage';
import { JobName, JobPayload, jobsOfQueue, JobsOf, QueueName } from '@stratus/queue';
import { ownDatabaseWait } from './own-database';

/** One handler per job of a queue; the compiler checks the set is complete. */
export type JobHandlers<Q extends QueueName> = { [N in JobsOf<Q>]: (data: JobPayload<N>, job: Job) => Promise<unknown> };

/** Start-up fails when a catalogued job has no handler or a handler has no job. */
export function assertHandlers<Q extends QueueName>(queue: Q, handlers: JobHandlers<Q>): void {
  const expected = jobsOfQueue(queue).sort();
  const given = Object.keys(handlers).sort();
  const missing = expected.filter((n) => !given.includes(n));
  const extra = given.filter((n) => !expected.includes(n as JobName));
  if (missing.length || extra.length) {
    throw new Error(`queue ${queue}: jobs without a handler [${missing.join(', ')}], handlers without a job [${extra.join(', ')}]`);
  }
}

/** The worker's root logger (nestjs-pino binds its own root only for HTTP apps); set by JobLogging. */
let jobLogRoot: PinoLogger['logger'] | null = null;

/**
 * The worker's logging, set up as Nest makes its providers: every provider
 * is made before any module's init hook runs, and the BullMQ workers start
 * taking jobs in one (BullModule's). Set up after boot, as it once was, the
 * jobs a worker takes up as it starts logged without their job's id: the
 * job log root was not set yet, and Nest held their lines (bufferLogs) and
 * printed them only at `useLogger`, outside the job that logged them.
 */
@Injectable()
export class JobLogging {
  constructor(root: PinoLogger, logger: Logger) {
    jobLogRoot = root.logger;
    // From here every Nest Logger writes to pino at once, in the context of the job that logs.
    NestLogger.overrideLogger(logger);
    NestLogger.flush();
  }
}

/**
 * Runs the job's handler with a logger bound to the job, so every line it
 * logs names the job. A handler that failed because our PostgreSQL is out
 * of reach sends its job back to the delayed set without spending an
 * attempt (OwnDatabase), when given the worker's token; without one (the
 * maintenance jobs, whose next period is their retry) it fails.
 */
export async function runHandler<Q extends QueueName>(handlers: JobHandlers<Q>, job: Job, token?: string): Promise<unknown> {
  const handler = (handlers as Record<string, (data: unknown, job: Job) => Promise<unknown>>)[job.name];
  if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
  try {
    if (!jobLogRoot) return await handler(job.data, job);
    const logger = jobLogRoot.child({ job_id: job.id, job_name: job.name, attempt: job.attemptsMade + 1 });
    return await storage.run(new Store(logger), () => handler(job.data, job));
  } catch (err) {
    const waitMs = token ? await ownDatabaseWait(err) : null;
    if (waitMs === null) throw err;
    await job.moveToDelayed(Date.now() + waitMs, token);
    throw new DelayedError();
  }
}
