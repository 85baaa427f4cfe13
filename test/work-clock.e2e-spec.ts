import { Instance, STOOD_STILL_AFTER_MS } from '@stratus/core';
import {
  catalogFixtures,
  createTenant,
  DEMO_CLUSTER,
  DEMO_INSTANCE,
  HttpClient,
  OwnRedis,
  TestStack,
  testDataSource,
  waitFor,
  waitForCluster,
  waitForInstance,
} from '@stratus/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';

/** Shorter than the outages below. */
const DEADLINE_MS = 8_000;
/** A cluster's build, and a rolling update's new member's time to pass its check: shorter than the outages too. */
const CLUSTER_DEADLINE_MS = 20_000;
/** An outage longer than `deadline`, and than the gap a stand-still starts after. */
const awayLongerThan = (deadline: number) => Math.max(deadline, STOOD_STILL_AFTER_MS) + 5_000;

/**
 * A build deadline counts only the time the control plane could work
 * (docs/decisions.md, Jobs): an instance whose build Redis held up, or the
 * absence of every worker, for longer than its deadline still builds, where
 * before the first sweep after the outage failed it. The deadline is short
 * here so the outages can be longer than it in seconds.
 */
describe('build deadlines across an outage of the control plane', () => {
  let redis: OwnRedis;
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    stack = await TestStack.start(
      {
        REDIS_URL: redis.url,
        INSTANCE_BUILD_DEADLINE_MS: String(DEADLINE_MS),
        CLUSTER_BUILD_DEADLINE_MS: String(CLUSTER_DEADLINE_MS),
        RECONCILE_INTERVAL_MS: '2000',
        LOST_JOB_GRACE_MS: '2000',
      },
      // The edge checks a cluster's members.
      ['api', 'worker', 'edge'],
    );
    await stack.workerReady();
    db = await testDataSource();
    api = stack.http.with({ 'x-api-key': (await createTenant(db)).apiKey });
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
    await redis?.stop();
  });

  /** A create the api accepts now, whose deadline runs out while the control plane is held up. */
  async function createHeldUp(name: string): Promise<string> {
    const created = await api.post('/v1/instances', { name, ...DEMO_INSTANCE });
    expect(created.status).toBe(202);
    return created.body.id;
  }

  /** ACTIVE (an ERROR fails at once), its deadline moved on by the stand-still: it had passed before the control plane came back. */
  async function expectBuilt(id: string): Promise<void> {
    expect(await waitForInstance(api, id, ['ACTIVE'], 180_000)).toMatchObject({ id, status: 'ACTIVE' });
    const row = await db.getRepository(Instance).findOneByOrFail({ id });
    expect(row.buildDeadline!.getTime() - row.createdAt.getTime()).toBeGreaterThan(DEADLINE_MS + 5_000);
  }

  it('Redis away for longer than the deadline: a create accepted meanwhile builds once it is back', async () => {
    await redis.stop();
    const id = await createHeldUp('redis-away');
    await sleep(awayLongerThan(DEADLINE_MS));
    await redis.start();
    await expectBuilt(id);
  }, 300_000);

  it('every worker down for longer than the deadlines: a create accepted meanwhile builds, a rolling update under way completes', async () => {
    const created = await api.post('/v1/clusters', { name: 'rolled-across', ...DEMO_CLUSTER, min_size: 1, max_size: 2 });
    expect(created.status).toBe(201);
    const cluster = await waitForCluster(api, created.body.id, ['CREATE_COMPLETE'], 120_000);
    const updated = await api.request('PUT', `/v1/clusters/${cluster.id}`, { flavor: catalogFixtures().otherFlavorName });
    expect(updated.body).toMatchObject({ status: 'UPDATE_IN_PROGRESS', spec_generation: 2 });
    // The workers go as the new member is made: it has not passed its check, and will not before they are back.
    await waitFor('the new member', async () => (await api.get(`/v1/clusters/${cluster.id}`)).body.members.some((m: { spec_generation: number }) => m.spec_generation === 2), {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    await stack.stopService('worker', 'SIGKILL');
    const id = await createHeldUp('workers-away');
    await sleep(awayLongerThan(CLUSTER_DEADLINE_MS));
    await stack.startService('worker');
    await stack.workerReady();
    await expectBuilt(id);
    // Its wait for the check leaves the outage out: before, the update failed as the workers came back.
    const rolled = await waitForCluster(api, cluster.id, ['UPDATE_COMPLETE', 'UPDATE_FAILED'], 120_000);
    expect(rolled).toMatchObject({ status: 'UPDATE_COMPLETE', status_reason: null });
    expect(rolled.members.map((m: { spec_generation: number }) => m.spec_generation)).toEqual([2]);
  }, 300_000);
});
