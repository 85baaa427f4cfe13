import { Instance, InstanceLifecycle, ProxyHost } from '@stratus/core';
import { COMPUTE_DRIVER, NETWORK_DRIVER, NetworkDriver } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { DEMO_INSTANCE, FakeComputeDriver, useWorkerOnFake, waitFor, WorkerOnFake } from '@stratus/testing';
import { WorkerModule } from '../worker.module';
import { InstancesProcessor } from './instances.processor';
import { InstancesReconciler } from './instances.reconciler';

/** The instance row once it is in one of `statuses` (its job may still be finishing: drain for that). */
function instanceIn(w: WorkerOnFake, id: string, statuses: Instance['status'][]): Promise<Instance> {
  return waitFor(
    `instance ${id} to reach ${statuses.join('/')}`,
    async () => {
      const row = await w.db.getRepository(Instance).findOneBy({ id });
      return row && statuses.includes(row.status) ? row : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

/*
 * The instances processor and reconciler as the worker runs them, in this
 * process: creates and deletes go through InstanceLifecycle (as the api's
 * routes do), the BullMQ workers Nest started run the jobs on the fake
 * provider, and every assertion waits for the queues to drain or a row to
 * move.
 */
describe('instances on the fake provider', () => {
  const w = useWorkerOnFake('instances', (config) => WorkerModule.register(config), { control: { bootMs: 200 }, env: { WORKER_CONCURRENCY: '1' } });
  const lives = () => w.get(InstanceLifecycle);
  const compute = () => w.get<FakeComputeDriver>(COMPUTE_DRIVER);
  const network = () => w.get<NetworkDriver>(NETWORK_DRIVER);
  const create = (name: string) => lives().create({ name, ...DEMO_INSTANCE }, w.principal);
  const bootsOf = (id: string) => w.control.boots.filter((b) => b.id === id);

  it('boots a new instance to ACTIVE, once', async () => {
    const created = await create('plain-create');
    expect(created.status).toBe('BUILD');
    await w.drained();
    const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
    expect(row).toMatchObject({ status: 'ACTIVE', statusReason: null });
    expect(row.metadata.resourceLimits).toMatch(/fake provider/);
    expect(bootsOf(created.id)).toHaveLength(1);
    expect(compute().has(created.id)).toBe(true);
  });

  it('a boot that fails ends in ERROR with the reason', async () => {
    w.control.failNextBoot('cannot find /app/server.js');
    const created = await create('bad-boot');
    await w.drained();
    const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^boot failed: exited with code 1; last output: .*cannot find \/app\/server\.js/);
  });

  it('a create cut short halfway is retried and boots the instance exactly once', async () => {
    w.control.failNext('compute.create', 'halfway');
    const created = await create('halfway');
    await w.drained();
    expect(await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).toMatchObject({ status: 'ACTIVE', statusReason: null });
    expect(bootsOf(created.id)).toHaveLength(1);
  });

  it('delete removes the row, its lease and proxy host, and the instance from the provider', async () => {
    const created = await create('to-delete');
    await instanceIn(w, created.id, ['ACTIVE']);
    const { address } = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
    expect(await network().observe(created.id)).toBe(address);
    await lives().delete(created.id, w.principal);
    await w.drained();
    expect(await w.db.getRepository(Instance).existsBy({ id: created.id })).toBe(false);
    expect(await network().observe(created.id)).toBeNull();
    expect(await w.db.getRepository(ProxyHost).countBy({ instanceId: created.id })).toBe(0);
    expect(compute().has(created.id)).toBe(false);
    expect(await compute().observe(created.id)).toBeNull();
  });

  it('with one worker slot, slow boots overlap: no slot is held while an instance boots', async () => {
    expect(w.get(InstancesProcessor).worker.concurrency).toBe(1);
    const count = 4;
    const before = w.control.boots.length;
    w.control.bootMs = 4_000;
    try {
      const created = await Promise.all(Array.from({ length: count }, (_, i) => create(`slow-${i}`)));
      await w.drained();
      for (const c of created) expect((await w.db.getRepository(Instance).findOneByOrFail({ id: c.id })).status).toBe('ACTIVE');
      // Each boot took 4 s: one after another they would not have overlapped at all.
      const boots = w.control.boots.slice(before);
      expect(boots).toHaveLength(count);
      const overlapping = boots.filter((b) => boots.some((o) => o !== b && o.startedAt < b.readyAt! && b.startedAt < o.readyAt!));
      expect(overlapping).toHaveLength(count);
    } finally {
      w.control.bootMs = 200;
    }
  });

  it('a delete that meets a create in the provider waits for that step: the address is not given back under a boot', async () => {
    // Two slots: the delete runs while the create is inside the provider's create call.
    const processor = w.get(InstancesProcessor);
    processor.worker.concurrency = 2;
    const hold = w.control.holdNext('compute.create');
    const queue = w.queue(QUEUES.instances);
    try {
      const created = await create('raced-delete');
      await hold.reached;
      const { address } = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
      await lives().delete(created.id, w.principal);
      const deleteDelayed = async () => (await queue.getDelayed()).some((job) => job.name === 'instance.delete' && job.data.instanceId === created.id);
      await waitFor(
        'the delete to wait (or, without the wait, to finish)',
        async () => (await deleteDelayed()) || !(await w.db.getRepository(Instance).existsBy({ id: created.id })) || undefined,
        {
          timeoutMs: 60_000,
          intervalMs: 20,
        },
      );
      // The boot under way still holds its row and its address.
      expect(await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).toMatchObject({ status: 'DELETING' });
      expect(await network().observe(created.id)).toBe(address);
      hold.release();
      await w.drained();
      expect(await w.db.getRepository(Instance).existsBy({ id: created.id })).toBe(false);
      expect(compute().has(created.id)).toBe(false);
      expect(await network().observe(created.id)).toBeNull();
    } finally {
      hold.release();
      processor.worker.concurrency = 1;
    }
  });

  describe('the reconciler', () => {
    const sweep = () => w.get(InstancesReconciler).sweep();

    it('marks an ACTIVE instance the provider lost SHUTOFF with the reason, and ACTIVE again once it runs', async () => {
      const created = await create('lost');
      await instanceIn(w, created.id, ['ACTIVE']);
      await w.drained();
      const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
      await compute().delete(created.id);

      // This once as the schedule runs it: a tick of the maintenance queue.
      await w.queue('maintenance').add('instances.reconcile', {});
      await w.drained(['maintenance']);
      expect(await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).toMatchObject({ status: 'SHUTOFF', statusReason: 'the instance process exited' });

      // It runs again (an operator started it): the sweep sees it and says so.
      w.control.bootMs = 0;
      try {
        await compute().create({ id: row.id, imageId: row.imageId, address: row.address!, port: row.port, userData: null, flavor: { vcpus: 1, ramMb: 512 } });
      } finally {
        w.control.bootMs = 200;
      }
      await sweep();
      expect(await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).toMatchObject({ status: 'ACTIVE', statusReason: null });
    });

    it('fails a build past its deadline and removes what the provider had started', async () => {
      w.control.bootMs = 600_000;
      try {
        const created = await create('stuck');
        await waitFor('its boot to start', () => bootsOf(created.id).length === 1, { timeoutMs: 60_000, intervalMs: 50 });
        await w.db.getRepository(Instance).update({ id: created.id }, { buildDeadline: new Date(Date.now() - 1_000) });

        await sweep();
        const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
        expect(row).toMatchObject({ status: 'ERROR', statusReason: 'build did not finish before its deadline' });
        expect(compute().has(created.id)).toBe(false);
        // Its job, delayed while the instance booted, comes back, finds ERROR and stops.
        await w.drained();
        expect((await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).status).toBe('ERROR');
      } finally {
        w.control.bootMs = 200;
      }
    });

    it('does not count against a deadline the time the control plane stood still', async () => {
      w.control.bootMs = 600_000;
      try {
        const created = await create('stood-still');
        await waitFor('its boot to start', () => bootsOf(created.id).length === 1, { timeoutMs: 60_000, intervalMs: 50 });
        // Made 20 minutes ago, a second past its deadline, and no worker beat the work clock for the last 10.
        await w.db.query(`UPDATE instances SET created_at = now() - interval '20 minutes', build_deadline = now() - interval '1 second' WHERE id = $1`, [created.id]);
        await w.db.query(`UPDATE work_clock SET at = now() - interval '10 minutes'`);

        await sweep();
        const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
        expect(row).toMatchObject({ status: 'BUILD', statusReason: null });
        expect(row.buildDeadline!.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
        expect(compute().has(created.id)).toBe(true);

        // Past it again with the clock beating: that counts, and the build fails.
        await w.db.getRepository(Instance).update({ id: created.id }, { buildDeadline: new Date(Date.now() - 1_000) });
        await sweep();
        expect(await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).toMatchObject({ status: 'ERROR', statusReason: 'build did not finish before its deadline' });
        await w.drained();
      } finally {
        w.control.bootMs = 200;
      }
    });

    it('re-enqueues the create job Redis lost, and the instance boots', async () => {
      const processor = w.get(InstancesProcessor);
      await processor.worker.pause();
      try {
        const created = await create('lost-job');
        const jobId = `instance-create-${created.id}-g1`;
        await waitFor('its job to be enqueued', async () => (await w.queue('instances').getJob(jobId)) ?? undefined, { timeoutMs: 30_000, intervalMs: 50 });
        await w.queue('instances').remove(jobId);
        // Older than the grace the reconciler leaves the enqueue that follows a commit.
        await w.db.query(`UPDATE instances SET updated_at = now() - interval '1 hour' WHERE id = $1`, [created.id]);

        await sweep();
        expect(await w.queue('instances').getJob(jobId)).toBeDefined();
        processor.worker.resume();
        await w.drained();
        expect((await w.db.getRepository(Instance).findOneByOrFail({ id: created.id })).status).toBe('ACTIVE');
      } finally {
        processor.worker.resume();
      }
    });
  });
});
