import { AppConfig } from '@stratus/core';
import { QUEUES } from '@stratus/queue';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { ScheduleKeeper } from './schedule-keeper';

/** Against the real Redis of the machine, on a queue prefix of its own (nothing else is touched). */
describe('ScheduleKeeper', () => {
  const connection = { host: '127.0.0.1', port: 6379 };
  const prefix = `schedule-keeper-spec-${randomUUID().slice(0, 8)}`;
  const queue = new Queue(QUEUES.maintenance, { connection, prefix });
  const keeper = new ScheduleKeeper(Object.assign(new AppConfig(), { RECONCILE_INTERVAL_MS: 3_000 }), queue);
  const ids = async () => (await queue.getJobSchedulers()).map((s) => s.key).sort();

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('puts back every schedule a Redis without them lacks, and only those', async () => {
    expect(await keeper.check()).toHaveLength(8);
    expect(await ids()).toEqual([
      'catalog-sync',
      'clusters-reconcile',
      'databases-reconcile',
      'hosts-reconcile',
      'instances-reconcile',
      'outbox-relay',
      'routes-reconcile',
      'volumes-reconcile',
    ]);
    expect(await keeper.check()).toEqual([]);

    await queue.removeJobScheduler('instances-reconcile');
    expect(await keeper.check()).toEqual(['instances-reconcile']);
    expect(await ids()).toHaveLength(8);
    expect((await queue.getJobScheduler('instances-reconcile'))?.every).toBe(3_000);
  });
});
