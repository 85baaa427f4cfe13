import { OutboxEntry } from '@stratus/core';
import { OutboxService, QUEUES, resourceJob } from '@stratus/queue';
import { useWorkerOnFake, waitFor } from '@stratus/testing';
import { In } from 'typeorm';
import { WorkerModule } from '../worker.module';

/*
 * The outbox's direct path, as a create uses it: `write` in the resource's
 * transaction, `dispatch` after the commit. The instances queue is paused, so
 * the jobs stay where dispatch put them; the relay runs an hour apart, so
 * every enqueue seen here is dispatch's own.
 */
describe('outbox dispatch', () => {
  const w = useWorkerOnFake('outbox-dispatch', (config) => WorkerModule.register(config), { env: { OUTBOX_RELAY_INTERVAL_MS: String(3_600_000) } });

  /** `count` entries written in one transaction, as `count` creates would each write one. */
  async function written(tag: string, count: number): Promise<OutboxEntry[]> {
    const outbox = w.get(OutboxService);
    return w.db.transaction(async (manager) => {
      const entries: OutboxEntry[] = [];
      for (let i = 0; i < count; i++) entries.push(await outbox.write(manager, resourceJob('instance.create', `${tag}-${i}`, { instanceId: `${tag}-${i}`, generation: 1 }, i + 1)));
      return entries;
    });
  }

  const dispatched = (entries: OutboxEntry[]) =>
    waitFor(
      'the entries to be marked dispatched',
      async () => {
        const rows = await w.db.getRepository(OutboxEntry).findBy({ id: In(entries.map((e) => e.id)) });
        return rows.length === entries.length && rows.every((r) => r.dispatchedAt) ? rows : undefined;
      },
      { timeoutMs: 60_000 },
    );

  beforeAll(() => w.queue(QUEUES.instances).pause());
  afterEach(() => jest.restoreAllMocks());

  it('write returns the row as inserted: its id, its job, its rank, not yet dispatched', async () => {
    const [entry] = await written('write', 1);
    expect(entry).toMatchObject({
      jobName: 'instance.create',
      jobId: 'instance-create-write-0-g1',
      payload: { instanceId: 'write-0', generation: 1 },
      priority: 1,
      dispatchedAt: null,
    });
    expect(entry.id).toMatch(/^\d+$/);
    expect(entry.createdAt).toBeInstanceOf(Date);
    expect(await w.db.getRepository(OutboxEntry).findOneByOrFail({ id: entry.id })).toMatchObject({ jobId: entry.jobId, priority: 1, dispatchedAt: null });
  });

  it('entries dispatched in one turn go to Redis together: one addBulk, every row marked', async () => {
    const queue = w.queue(QUEUES.instances);
    const entries = await written('together', 3);
    const addBulk = jest.spyOn(queue, 'addBulk');
    // Three creates whose commits came back in the same turn, each dispatching its own entry.
    for (const entry of entries) w.get(OutboxService).dispatch([entry]);
    await dispatched(entries);
    expect(addBulk).toHaveBeenCalledTimes(1);
    expect(addBulk.mock.calls[0][0].map((job) => [job.opts?.jobId, job.opts?.priority])).toEqual(entries.map((e) => [e.jobId, e.priority]));
    for (const entry of entries) expect(await queue.getJob(entry.jobId)).toMatchObject({ name: 'instance.create', data: entry.payload });
  });

  it('an entry dispatched in a later turn goes in a batch of its own', async () => {
    const queue = w.queue(QUEUES.instances);
    const [first, second] = await written('apart', 2);
    const addBulk = jest.spyOn(queue, 'addBulk');
    w.get(OutboxService).dispatch([first]);
    await new Promise((resolve) => setImmediate(resolve));
    w.get(OutboxService).dispatch([second]);
    await dispatched([first, second]);
    expect(addBulk.mock.calls.map((call) => call[0].map((job) => job.opts?.jobId))).toEqual([[first.jobId], [second.jobId]]);
  });
});
