import { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { waitForDrain } from './queue-drain';

/** Against the real Redis of the machine, on a queue prefix of its own (nothing else is touched). */
describe('waitForDrain', () => {
  const connection = { host: '127.0.0.1', port: 6379 };
  const prefix = `queue-drain-spec-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('volumes', { connection, prefix });
  const other = new Queue('instances', { connection, prefix });

  afterAll(async () => {
    for (const q of [queue, other]) {
      await q.obliterate({ force: true });
      await q.close();
    }
  });

  it('returns once the jobs ran, including one a job queued as it finished', async () => {
    const worker = new Worker(
      'volumes',
      async (job) => {
        // As a volume created with an instance queues its attach.
        if (job.name === 'first') await queue.add('second', {}, { jobId: 'second' });
      },
      { connection, prefix },
    );
    try {
      await queue.add('first', {}, { jobId: 'first' });
      await waitForDrain([queue], { timeoutMs: 30_000 });
      expect(await (await queue.getJob('second'))?.getState()).toBe('completed');
    } finally {
      await worker.close();
    }
  });

  it('fails at its deadline naming the queue, the state and the job still there', async () => {
    await other.add('later', {}, { jobId: 'later-1', delay: 600_000 });
    await expect(waitForDrain([queue, other], { timeoutMs: 300 })).rejects.toThrow('queues not drained after 300 ms: instances: 1 delayed (later-1)');
    await other.remove('later-1');
  });

  it("does not wait for a job scheduler's next tick", async () => {
    await other.upsertJobScheduler('tick', { every: 600_000 }, { name: 'tick' });
    const worker = new Worker('instances', async () => undefined, { connection, prefix });
    try {
      await waitForDrain([other], { timeoutMs: 30_000 });
      expect(await other.getDelayedCount()).toBe(1);
    } finally {
      await worker.close();
      await other.removeJobScheduler('tick');
    }
  });
});
