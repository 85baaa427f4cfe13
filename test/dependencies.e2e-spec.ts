import { Instance } from '@stratus/core';
import { QUEUES, resourceJobId } from '@stratus/queue';
import {
  accepts,
  createManaged,
  createTenant,
  DEMO_CLUSTER,
  HttpClient,
  instanceLeadersUnder,
  OwnPostgres,
  OwnRedis,
  Reply,
  resetTestInstallation,
  secondInstallationPool,
  tearDownInstallationAt,
  testConfig,
  testDataSource,
  testEnv,
  TestStack,
  waitFor,
  waitForCluster,
  waitForDatabase,
  waitForInstance,
} from '@stratus/testing';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/** What a caller may wait for an answer when a dependency is down. */
const FAIL_FAST_MS = 2_000;
/** Creates accepted just before PostgreSQL crashes. */
const IN_FLIGHT = 20;
const INSTANCE = { image_id: 'plain', flavor_id: 'm1.nano', network_id: 'private', keypair_name: 'default' };

/**
 * The api and worker on a Redis and a PostgreSQL of the suite's own, which
 * the tests stop and start again: every request answers within 2 s, a 503 in
 * the error envelope for what cannot be answered, never a 500, and the same
 * processes carry on once the dependency is back.
 */
describe('dependencies: fail fast without Redis or PostgreSQL', () => {
  let redis: OwnRedis;
  let pg: OwnPostgres;
  let overrides: Record<string, string>;
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;
  let apiKey: string;

  beforeAll(async () => {
    [redis, pg] = await Promise.all([OwnRedis.start(), OwnPostgres.start()]);
    const slot = testEnv();
    overrides = {
      REDIS_URL: redis.url,
      DATABASE_URL: pg.url('stratus_dependencies'),
      DATA_DIR: `${slot.DATA_DIR}-dependencies`,
      LOCAL_ADDRESS_POOL: secondInstallationPool('dependencies'),
    };
    await resetTestInstallation(overrides);
    // The edge too: a cluster's members take traffic once its balancer's checks pass.
    stack = await TestStack.start(overrides, ['api', 'worker', 'edge']);
    await stack.workerReady();
    db = await testDataSource(overrides);
    apiKey = (await createTenant(db, undefined, testConfig(overrides))).apiKey;
    api = stack.http.with({ 'x-api-key': apiKey });
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
    if (overrides) await tearDownInstallationAt(overrides.DATA_DIR);
    await redis?.stop();
    await pg?.destroy();
  });

  /** The reply and how long it took. */
  async function timed(request: () => Promise<Reply>): Promise<[Reply, number]> {
    const started = Date.now();
    const reply = await request();
    return [reply, Date.now() - started];
  }

  /** Lets a dependency stay away `ms` longer: the clients have been failing and retrying meanwhile. */
  async function outageOf(ms: number): Promise<void> {
    const start = Date.now();
    await waitFor(`${ms / 1000} s of outage`, () => Date.now() - start >= ms, { timeoutMs: ms * 2, intervalMs: 250 });
  }

  function expectUnavailable(reply: Reply, naming: RegExp): void {
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({ error: { code: 'service_unavailable', message: expect.stringMatching(naming) } });
  }

  function expectSameProcesses(pids: Array<number | undefined>): void {
    expect([stack.process('api')?.pid, stack.process('worker')?.pid]).toEqual(pids);
    expect(stack.process('api')?.exitCode).toBeNull();
    expect(stack.process('worker')?.exitCode).toBeNull();
  }

  it('Redis stopped: creates are accepted, list and get answer, /ready names Redis; the create completes once Redis is back', async () => {
    const pids = [stack.process('api')?.pid, stack.process('worker')?.pid];
    const before = await api.post('/v1/instances', { name: 'before-redis-stops', ...INSTANCE });
    expect(before.status).toBe(202);
    await waitForInstance(api, before.body.id);

    await redis.stop();
    const accepted: string[] = [];
    // Right away, and again once the clients have been reconnecting for a while.
    for (const round of [0, 1]) {
      if (round === 1) {
        await outageOf(5_000);
      }
      const [created, createMs] = await timed(() => api.post('/v1/instances', { name: `during-outage-${round}`, ...INSTANCE }));
      expect(created.status).toBe(202);
      expect(createMs).toBeLessThan(FAIL_FAST_MS);
      accepted.push(created.body.id);

      const [list, listMs] = await timed(() => api.get('/v1/instances'));
      expect(list.status).toBe(200);
      expect(list.body.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining([before.body.id, ...accepted]));
      expect(listMs).toBeLessThan(FAIL_FAST_MS);

      const [got, getMs] = await timed(() => api.get(`/v1/instances/${created.body.id}`));
      expect(got.status).toBe(200);
      expect(getMs).toBeLessThan(FAIL_FAST_MS);

      const [ready, readyMs] = await timed(() => stack.http.get('/ready'));
      expectUnavailable(ready, /redis/i);
      expect(ready.body.error.message).not.toMatch(/postgres/i);
      expect(readyMs).toBeLessThan(FAIL_FAST_MS);
    }

    await redis.start();
    for (const id of accepted) expect((await waitForInstance(api, id, ['ACTIVE'], 90_000)).status).toBe('ACTIVE');
    await waitFor('/ready to answer 200', async () => (await stack.http.get('/ready')).status === 200, { timeoutMs: 30_000 });
    expectSameProcesses(pids);
  }, 180_000);

  it('PostgreSQL stopped: 503 in the envelope within 2 s, never a 500, and recovery once it is back', async () => {
    const pids = [stack.process('api')?.pid, stack.process('worker')?.pid];
    await pg.stop();

    for (const request of [
      () => api.get('/v1/instances'),
      () => api.post('/v1/instances', { name: 'during-pg-outage', ...INSTANCE }),
      () => api.get('/v1/instances/00000000-0000-4000-8000-000000000000'),
      () => stack.http.get('/ready'),
    ]) {
      const [reply, ms] = await timed(request);
      expectUnavailable(reply, /postgres/i);
      expect(ms).toBeLessThan(FAIL_FAST_MS);
    }
    expect((await stack.http.get('/health')).status).toBe(200);
    expect(
      await db
        .getRepository(Instance)
        .count()
        .catch(() => 'down'),
    ).toBe('down');

    await pg.start();
    await waitFor('the api to list instances again', async () => (await api.get('/v1/instances')).status === 200, { timeoutMs: 60_000 });
    const created = await api.post('/v1/instances', { name: 'after-pg-outage', ...INSTANCE });
    expect(created.status).toBe(202);
    await waitForInstance(api, created.body.id);
    expect(await db.getRepository(Instance).countBy({ name: 'during-pg-outage' })).toBe(0);
    await waitFor('/ready to answer 200', async () => (await stack.http.get('/ready')).status === 200, { timeoutMs: 30_000 });
    expectSameProcesses(pids);
  }, 180_000);

  it('PostgreSQL crashes with creates in flight: each instance ends ACTIVE and built once, the database ready, the cluster complete', async () => {
    const pids = [stack.process('api')?.pid, stack.process('worker')?.pid];
    const replies = await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => api.post('/v1/instances', { name: `in-flight-${i}`, ...INSTANCE })));
    for (const reply of replies) expect(reply.status).toBe(202);
    const ids: string[] = replies.map((reply) => reply.body.id);
    const database = (await createManaged(api, 'databases', { name: 'in-flight-db' })).body;
    const cluster = await api.post('/v1/clusters', { name: 'in-flight-web', ...DEMO_CLUSTER, min_size: 2 });
    expect(cluster.status).toBe(201);

    await pg.crash();
    // The crash must catch builds in flight, or it proves nothing.
    const states = await stack.withQueues([QUEUES.instances], async ([queue]) => {
      const jobs = await Promise.all(ids.map((id) => queue.getJob(resourceJobId('instance.create', id, 1))));
      return Promise.all(jobs.map(async (job) => (job ? job.getState() : 'missing')));
    });
    expect(states.filter((state) => state !== 'completed').length).toBeGreaterThan(0);
    await waitFor('/ready to name PostgreSQL', async () => /postgres/i.test((await stack.http.get('/ready')).body?.error?.message ?? ''), { timeoutMs: 30_000 });
    await outageOf(5_000);
    await pg.start();

    for (const id of ids) expect((await waitForInstance(api, id, ['ACTIVE', 'ERROR'], 240_000)).status).toBe('ACTIVE');
    // Failing on PostgreSQL spent no attempt: a job waits for it instead (OwnDatabase), so every
    // build completed on its first attempt (without the wait, each spent three on this outage).
    const attempts = await stack.withQueues([QUEUES.instances], ([queue]) =>
      Promise.all(ids.map(async (id) => (await queue.getJob(resourceJobId('instance.create', id, 1)))?.attemptsMade)),
    );
    expect(attempts).toEqual(ids.map(() => 1));
    const built = await waitForCluster(api, cluster.body.id, ['CREATE_COMPLETE'], 240_000);
    expect(built.members).toHaveLength(2);
    // The process table is the truth: one supervised process per instance, however often its job ran, and none for an instance PostgreSQL does not know.
    const leaders = instanceLeadersUnder(join(overrides.DATA_DIR, 'instances'));
    const members: string[] = built.members.map((m: { instance_id: string }) => m.instance_id);
    expect([...ids, ...members].filter((id) => leaders.get(id)?.length !== 1)).toEqual([]);
    const known = new Set((await db.query('SELECT id FROM instances')).map((r: { id: string }) => r.id));
    expect([...leaders.keys()].filter((id) => !known.has(id))).toEqual([]);
    // Ready means a client gets in with the password the create returned.
    const ready = await waitForDatabase(api, 'databases', database.id, ['ready'], { timeoutMs: 240_000 });
    const client = new Client({ host: ready.floating_ip, port: ready.port, user: ready.db_user, database: ready.db_name, password: database.db_password });
    await client.connect();
    try {
      expect((await client.query('SELECT 40 + 2 AS answer')).rows).toEqual([{ answer: 42 }]);
    } finally {
      await client.end();
    }
    expectSameProcesses(pids);
  }, 360_000);

  it('shutdown: a request the stopping api refuses gets the envelope', async () => {
    const port = Number(stack.env.API_PORT);
    const body = JSON.stringify({ name: 'during-shutdown', ...INSTANCE });
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    // A request in flight keeps the connection open while the server closes; a
    // second one sent behind it arrives once the api no longer takes requests.
    socket.write(`POST /v1/instances HTTP/1.1\r\nhost: api\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    stack.process('api')!.kill('SIGTERM');
    await waitFor('the api to stop accepting connections', async () => !(await accepts('127.0.0.1', port)), { timeoutMs: 30_000, intervalMs: 20 });
    socket.write(`${body.slice(5)}GET /v1/instances HTTP/1.1\r\nhost: api\r\nx-api-key: ${apiKey}\r\n\r\n`);
    await ended;

    const replies = parseResponses(Buffer.concat(received).toString());
    expect(replies.length).toBeGreaterThanOrEqual(1);
    const refused = replies.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(JSON.parse(r.body)).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
    expect(replies.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);
  }, 60_000);
});

/** The HTTP/1.1 responses on one connection, in order (bodies with a content-length). */
function parseResponses(raw: string): Array<{ status: number; body: string }> {
  const replies: Array<{ status: number; body: string }> = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const head = rest.slice(0, headEnd);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    replies.push({ status: Number(head.slice(9, 12)), body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return replies;
}
