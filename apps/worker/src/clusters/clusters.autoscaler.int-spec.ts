import { AppConfig, Cluster, loadConfig, migrate } from '@stratus/core';
import { ComputeDriver, CpuUsage } from '@stratus/providers';
import { dropDatabase, recordingOutbox, testEnv } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ClustersAutoscaler } from './clusters.autoscaler';

/**
 * The sampler's bookkeeping on a throwaway database migrated as an
 * installation's is: windows written to cluster_members.cpu and read back
 * by a new autoscaler each tick (as after a worker restart), and the scale
 * decision written in one transaction. The CPU counters are scripted; the
 * clock is jest's, so a 4 s window passes without waiting for it.
 */
describe('ClustersAutoscaler', () => {
  const database = `stratus_autoscale_${process.pid}`;
  const env = testEnv();
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${database}`;
  let ds: DataSource;
  let config: AppConfig;
  /** Each member's CPU as a fraction of its flavor; counters advance by it as the clock does. */
  const load = new Map<string, number>();
  const counters = new Map<string, CpuUsage>();
  const compute = {
    async usage(ids: string[]): Promise<Map<string, CpuUsage>> {
      const at = Date.now();
      const out = new Map<string, CpuUsage>();
      for (const id of ids) {
        if (!load.has(id)) continue;
        const prev = counters.get(id) ?? { cpuSeconds: 0, at };
        const next = { cpuSeconds: prev.cpuSeconds + ((at - prev.at) / 1000) * load.get(id)! * VCPUS, at };
        counters.set(id, next);
        out.set(id, next);
      }
      return out;
    },
  } as unknown as ComputeDriver;
  const { outbox, written } = recordingOutbox();
  const VCPUS = 2;
  const fresh = () => new ClustersAutoscaler(ds, config, outbox, compute);

  beforeAll(async () => {
    config = loadConfig({ ...env, DATABASE_URL: url.toString(), CLUSTER_SCALE_WINDOW_MS: '4000', CLUSTER_SCALE_COOLDOWN_MS: '3000' });
    ds = await migrate(config);
    await ds.query(`INSERT INTO flavors (id, name, vcpus, ram_mb, disk_gb) VALUES ('as-2', 'as.two', $1, 512, 1) ON CONFLICT DO NOTHING`, [VCPUS]);
    // Only Date is faked: the database client's timers run as usual.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] });
    jest.setSystemTime(new Date('2030-01-01T00:00:00Z'));
  });

  afterAll(async () => {
    jest.useRealTimers();
    await ds?.destroy();
    await dropDatabase(url.toString());
  });

  async function cluster(status: string, members: number): Promise<{ id: string; memberIds: string[] }> {
    const projectId = randomUUID();
    const [{ id }] = await ds.query(
      `INSERT INTO clusters (project_id, user_id, name, image_id, flavor_id, network_id, subnet_id, key_name, port, dns_name, min_size, max_size, desired_size,
                             scale_out_threshold, scale_in_threshold, status)
       VALUES ($1, 'u', 'c', 'img', 'as-2', 'private', 'private-subnet', 'default', 8080, $2, 1, 3, $3, 0.7, 0.2, $4) RETURNING id`,
      [projectId, `c-${randomUUID()}.localhost`, members, status],
    );
    const memberIds: string[] = [];
    for (let i = 0; i < members; i++) {
      const [{ id: instanceId }] = await ds.query(
        `INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, address, status)
         VALUES ($1, 'u', 'm', 'img', 'as-2', 'private', 'default', '{}', $2, 'ACTIVE') RETURNING id`,
        [projectId, `10.77.${Math.floor(Math.random() * 250)}.${i + 1}`],
      );
      await ds.query(`INSERT INTO cluster_members (instance_id, cluster_id, spec_generation) VALUES ($1, $2, 1)`, [instanceId, id]);
      memberIds.push(instanceId);
    }
    return { id, memberIds };
  }

  const windowOf = async (instanceId: string) => (await ds.query(`SELECT cpu FROM cluster_members WHERE instance_id = $1`, [instanceId]))[0].cpu;
  const tick = async (ms: number) => {
    jest.setSystemTime(Date.now() + ms);
    await fresh().sweep();
  };

  it('keeps each member window in the database, trimmed to the window, and scales out once it is full', async () => {
    const { id, memberIds } = await cluster('CREATE_COMPLETE', 1);
    const [member] = memberIds;
    load.set(member, 0.8);

    await tick(0);
    // The first reading is only a start: no interval, no sample.
    expect(await windowOf(member)).toEqual({ last: { cpuSeconds: 0, at: Date.now() }, samples: [] });
    for (let i = 0; i < 4; i++) await tick(800);
    const filling = await windowOf(member);
    expect(filling.samples).toHaveLength(4);
    for (const s of filling.samples) expect(s.fraction).toBeCloseTo(0.8, 9);
    // Samples spanning 2.4 s of a 4 s window: less than the 80 % a member needs to count, so nothing yet.
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id })).status).toBe('CREATE_COMPLETE');

    await tick(800);
    const row = await ds.getRepository(Cluster).findOneByOrFail({ id });
    expect(row).toMatchObject({ status: 'UPDATE_IN_PROGRESS', desiredSize: 2, generation: 2 });
    expect(row.lastScaledAt?.getTime()).toBe(Date.now());
    const events = await ds.query(`SELECT kind, reason FROM cluster_events WHERE cluster_id = $1`, [id]);
    expect(events).toEqual([{ kind: 'scale_out', reason: 'average CPU 0.80 over 4 s above 0.7: one member added (1 to 2)' }]);
    expect(written).toContainEqual({ name: 'cluster.converge', payload: { clusterId: id, generation: 2 } });
  });

  it('drops samples older than the window and leaves a cluster that is not at rest alone', async () => {
    const { id, memberIds } = await cluster('CREATE_COMPLETE', 2);
    const busy = await cluster('UPDATE_IN_PROGRESS', 1);
    for (const m of [...memberIds, ...busy.memberIds]) load.set(m, 0.4);
    // Between the thresholds: it samples on and on without acting.
    for (let i = 0; i < 10; i++) await tick(1_000);
    for (const m of memberIds) {
      const w = await windowOf(m);
      expect(w.samples.length).toBeGreaterThan(0);
      expect(w.samples.every((s: { at: number }) => s.at > Date.now() - 4_000)).toBe(true);
      // Read at 0, 1, 2 and 3 s ago: the one 4 s ago fell out.
      expect(w.samples).toHaveLength(4);
    }
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id })).status).toBe('CREATE_COMPLETE');
    expect(await windowOf(busy.memberIds[0])).toBeNull();
  });

  it('leaves alone a cluster whose members are of an older spec (a rolling update replaces them first), and scales it once they are not', async () => {
    const { id, memberIds } = await cluster('UPDATE_FAILED', 2);
    // Its spec moved on: the members still hold spec 1.
    await ds.query(`UPDATE clusters SET spec_generation = 2 WHERE id = $1`, [id]);
    for (const m of memberIds) load.set(m, 0.9);
    // Readings 800 ms apart: the window (4 s) is full after five, and stays so.
    for (let i = 0; i < 8; i++) await tick(800);
    const [row] = await ds.query(`SELECT status, desired_size AS "desiredSize" FROM clusters WHERE id = $1`, [id]);
    expect(row).toEqual({ status: 'UPDATE_FAILED', desiredSize: 2 });
    const decision = await fresh().look(await ds.getRepository(Cluster).findOneByOrFail({ id }));
    expect(decision).toMatchObject({ action: 'none', reason: expect.stringContaining('older spec') });

    // Once they are of the cluster's spec, a failed update's cluster scales as any at rest.
    await ds.query(`UPDATE cluster_members SET spec_generation = 2 WHERE cluster_id = $1`, [id]);
    await tick(800);
    expect(await ds.getRepository(Cluster).findOneByOrFail({ id })).toMatchObject({ status: 'UPDATE_IN_PROGRESS', desiredSize: 3 });
  });
});
