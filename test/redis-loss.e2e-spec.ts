import { Instance } from '@stratus/core';
import { QUEUES } from '@stratus/queue';
import { createManaged, createTenant, DEMO_CLUSTER, HttpClient, OwnRedis, TestStack, testDataSource, waitFor, waitForCluster, waitForDatabase } from '@stratus/testing';
import { DataSource, In } from 'typeorm';

const CREATES = 50;
const RECONCILE_INTERVAL_MS = 2_000;
/** Short, so a lost create waits seconds, not the default half minute, before its repair. */
const LOST_JOB_GRACE_MS = 2_000;

/**
 * Redis is a delivery mechanism, PostgreSQL the truth: when Redis loses
 * every job and every schedule while creates are queued, the running worker
 * must bring every accepted create to a terminal state on its own, with no
 * Stratus process restarted. One slot for the whole instances queue (BullMQ's
 * global concurrency, which lives in Redis) keeps the creates queued long
 * enough for the loss to hit them; the loss takes that limit too, so the
 * repair runs on the worker's every slot, as it would in production. A
 * cache and a cluster lose their jobs with them, and their own reconcilers
 * bring them back.
 */
describe('repair after Redis loses its data', () => {
  let redis: OwnRedis;
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    // The edge too: a cluster's members take traffic once its balancer's checks pass.
    stack = await TestStack.start(
      {
        REDIS_URL: redis.url,
        RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
        LOST_JOB_GRACE_MS: String(LOST_JOB_GRACE_MS),
      },
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

  /** The creates, queued behind one slot: only a loss of Redis's data lifts that limit. */
  async function createMany(label: string): Promise<string[]> {
    await stack.withQueues([QUEUES.instances], ([queue]) => queue.setGlobalConcurrency(1));
    const replies = await Promise.all(
      Array.from({ length: CREATES }, (_, i) =>
        api.post('/v1/instances', { name: `${label}-${i}`, image_id: 'plain', flavor_id: 'm1.nano', network_id: 'private', keypair_name: 'default' }),
      ),
    );
    for (const r of replies) expect(r.status).toBe(202);
    return replies.map((r) => r.body.id as string);
  }

  /**
   * Every create ends ACTIVE, and api and worker are the same processes. The bound is generous:
   * lost jobs are re-enqueued once LOST_JOB_GRACE_MS has passed, then the worker builds all 50,
   * which a loaded machine makes slow, not wrong.
   */
  async function expectAllBuilt(ids: string[], lostAt: number, pids: Array<number | undefined>): Promise<void> {
    await waitFor(`all ${CREATES} instances to leave BUILD`, async () => (await db.getRepository(Instance).countBy({ id: In(ids), status: 'BUILD' })) === 0, {
      timeoutMs: RECONCILE_INTERVAL_MS + 180_000 - (Date.now() - lostAt),
      intervalMs: 500,
    });
    const statuses = await db.query(`SELECT status, count(*)::int AS n FROM instances WHERE id = ANY($1) GROUP BY status`, [ids]);
    expect(statuses).toEqual([{ status: 'ACTIVE', n: CREATES }]);
    expect([stack.process('api')?.pid, stack.process('worker')?.pid]).toEqual(pids);
    expect(stack.process('api')?.exitCode).toBeNull();
    expect(stack.process('worker')?.exitCode).toBeNull();
  }

  /** How many creates were still waiting for their job when Redis lost it. */
  async function stillBuilding(ids: string[]): Promise<number> {
    return db.getRepository(Instance).countBy({ id: In(ids), status: 'BUILD' });
  }

  async function schedulers(): Promise<number> {
    return stack.withQueues([QUEUES.maintenance], async ([queue]) => (await queue.getJobSchedulers()).length);
  }

  it('FLUSHALL: lost jobs and schedules come back and every create finishes', async () => {
    const pids = [stack.process('api')?.pid, stack.process('worker')?.pid];
    const ids = await createMany('flush');
    // A database and a cluster lose their jobs too: each has a reconciler of its own to find them.
    // The databases queue is paused (in Redis, so the loss lifts it), or a spare would answer the create at once.
    await stack.withQueues([QUEUES.databases], ([databases]) => databases.pause());
    const cache = await createManaged(api, 'cache', { name: 'flushed-cache' });
    const cluster = await api.post('/v1/clusters', { name: 'flushed-web', ...DEMO_CLUSTER, min_size: 2 });
    expect(cluster.status).toBe(201);
    redis.flushAll();
    const lostAt = Date.now();
    expect(await stillBuilding(ids)).toBeGreaterThan(0);

    await expectAllBuilt(ids, lostAt, pids);
    expect(await schedulers()).toBeGreaterThanOrEqual(5);
    expect((await waitForDatabase(api, 'cache', cache.body.id)).status).toBe('ready');
    expect((await waitForCluster(api, cluster.body.id, ['CREATE_COMPLETE'], 240_000)).members).toHaveLength(2);
  }, 300_000);

  it('restart with no persistence: the same, once Redis answers again', async () => {
    const pids = [stack.process('api')?.pid, stack.process('worker')?.pid];
    const ids = await createMany('restart');
    await redis.stop();
    expect(await stillBuilding(ids)).toBeGreaterThan(0);
    await redis.start();
    const lostAt = Date.now();

    await expectAllBuilt(ids, lostAt, pids);
    expect(await schedulers()).toBeGreaterThanOrEqual(5);
  }, 300_000);
});
