import { WorkerOptions } from 'bullmq';

type NestWorkerOptions = Omit<WorkerOptions, 'connection'>;

/**
 * A worker that dies mid-job (crash, SIGKILL, redeploy) leaves its jobs
 * locked; they return to the queue once the lock lapses. Short locks make that
 * quick; a high stall count keeps a job that merely outlived several worker
 * deaths from being failed, since every handler is safe to run again.
 */
export const INSTANCE_WORKER_OPTIONS: NestWorkerOptions = {
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 1_000,
};

export const MAINTENANCE_WORKER_OPTIONS: NestWorkerOptions = {
  concurrency: 4,
  lockDuration: 30_000,
  stalledInterval: 10_000,
  maxStalledCount: 10,
};
