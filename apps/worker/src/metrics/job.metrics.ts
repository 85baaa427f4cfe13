import { metricsRegistry } from '@stratus/core';
import { Job, Worker } from 'bullmq';
import { Counter, Histogram } from 'prom-client';

/** From under 10 ms (an idle queue) to minutes (a backlog). */
const PICKUP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** From a no-op (ms) to a managed database's first start. */
const RUN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const pickupSeconds = new Histogram({
  name: 'stratus_job_pickup_seconds',
  help: 'Time from enqueue (or the end of its delay) to a worker taking the job up, first attempt only, by queue',
  labelNames: ['queue'] as const,
  buckets: PICKUP_BUCKETS,
  registers: [metricsRegistry],
});

const runSeconds = new Histogram({
  name: 'stratus_job_run_seconds',
  help: 'Time a job attempt ran, by queue, job name and outcome (completed, failed)',
  labelNames: ['queue', 'job', 'outcome'] as const,
  buckets: RUN_BUCKETS,
  registers: [metricsRegistry],
});

const failedJobs = new Counter({
  name: 'stratus_jobs_failed_total',
  help: 'Job attempts that failed, by queue and job name; final="true" when the job will not be tried again',
  labelNames: ['queue', 'job', 'final'] as const,
  registers: [metricsRegistry],
});

/**
 * How long a job waited for a worker: from when it became runnable (added,
 * plus the delay it was added with) to its first pickup. A job back from a
 * not-ready delay or a retry is the same job with an older timestamp: its
 * later pickups would count its whole life, so only the first is measured.
 */
export function pickupDelayMs(job: Pick<Job, 'timestamp' | 'processedOn' | 'attemptsStarted' | 'opts'>): number | null {
  if (job.attemptsStarted > 1 || job.processedOn === undefined) return null;
  return Math.max(0, job.processedOn - job.timestamp - (job.opts.delay ?? 0));
}

/**
 * Job names and queue names are the catalog's fixed strings, so both are
 * bounded labels; the job id (which names a resource) never is one.
 */
export function measureJobs(worker: Worker): void {
  const queue = worker.name;
  worker.on('active', (job) => {
    const ms = pickupDelayMs(job);
    if (ms !== null) pickupSeconds.observe({ queue }, ms / 1000);
  });
  worker.on('completed', (job) => observeRun(queue, job, 'completed'));
  worker.on('failed', (job, err) => {
    if (!job) return;
    observeRun(queue, job, 'failed');
    // An UnrecoverableError ends the job whatever attempts are left (driver-errors.ts: a terminal failure).
    const final = err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    failedJobs.inc({ queue, job: job.name, final: String(final) });
  });
}

function observeRun(queue: string, job: Job, outcome: 'completed' | 'failed'): void {
  if (job.processedOn === undefined || job.finishedOn === undefined) return;
  runSeconds.observe({ queue, job: job.name, outcome }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
}
