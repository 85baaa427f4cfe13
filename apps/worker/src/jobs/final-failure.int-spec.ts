import { ON_WORKER_EVENT_METADATA } from '@nestjs/bullmq/dist/bull.constants';
import { Job, Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { OnFinalFailure } from './final-failure';

/** What a processor's final-failure handler meets when PostgreSQL is away: its write throws. */
class Recorder {
  calls: Array<{ attemptsMade: number; cause: string }> = [];

  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    this.calls.push({ attemptsMade: job.attemptsMade, cause: err.message });
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  }
}

/** Against the real Redis of the machine, on a queue prefix of its own, with BullMQ's worker emitting as in the worker process. */
describe('OnFinalFailure', () => {
  const connection = { host: '127.0.0.1', port: 6379 };
  const prefix = `final-failure-spec-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('volumes', { connection, prefix });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('is a failed-event listener to Nest, as @OnWorkerEvent makes one', () => {
    const listener: unknown = Object.getOwnPropertyDescriptor(Recorder.prototype, 'onFailed')?.value;
    expect(Reflect.getMetadata(ON_WORKER_EVENT_METADATA, listener as object)).toEqual({ eventName: 'failed' });
  });

  it('runs on the last attempt only, and a handler that throws does not end the process', async () => {
    const recorder = new Recorder();
    const worker = new Worker('volumes', async () => Promise.reject(new Error('driver down')), { connection, prefix });
    // As @nestjs/bullmq registers it: the listener's promise is awaited by nobody.
    worker.on('failed', (job, err) => void recorder.onFailed(job as Job, err));
    let failures = 0;
    const lastFailure = new Promise<void>((resolve) => worker.on('failed', () => ++failures === 2 && resolve()));
    try {
      await queue.add('volume.create', { volumeId: 'v', generation: 1 }, { attempts: 2 });
      await lastFailure;
      // The listener's rejection, had it escaped, is reported once the current turn's promises have settled.
      await new Promise(setImmediate);
    } finally {
      await worker.close();
    }
    expect(recorder.calls).toEqual([{ attemptsMade: 2, cause: 'driver down' }]);
    expect(unhandled).toEqual([]);
  });
});
