import { resourceJob } from '@stratus/queue';
import { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { ensureJob } from './lost-jobs';

/** Against the real Redis of the machine, on a queue prefix of its own. */
describe('ensureJob', () => {
  const connection = { host: '127.0.0.1', port: 6379 };
  const prefix = `lost-jobs-spec-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('volumes', { connection, prefix });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('enqueues a job Redis lost, once, under its deterministic id', async () => {
    const job = resourceJob('volume.create', randomUUID(), { volumeId: 'v', generation: 1 });
    expect(await ensureJob(queue, job)).toBe(true);
    expect(await ensureJob(queue, job)).toBe(false);
    expect((await queue.getJobs(['waiting'])).filter((j) => j.id === job.jobId)).toHaveLength(1);
  });

  it('retries a job that failed for good', async () => {
    const job = resourceJob('volume.delete', randomUUID(), { volumeId: 'v', generation: 2 });
    await queue.add(job.name, job.payload, { jobId: job.jobId, attempts: 1 });
    const worker = new Worker('volumes', async () => Promise.reject(new Error('driver down')), { connection, prefix });
    await new Promise<void>((resolve) => worker.once('failed', () => resolve()));
    await worker.close();
    expect(await (await queue.getJob(job.jobId))!.isFailed()).toBe(true);

    expect(await ensureJob(queue, job)).toBe(false);
    expect(await (await queue.getJob(job.jobId))!.getState()).toBe('waiting');
  });
});
