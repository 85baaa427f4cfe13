import { OperatorCredential } from '@stratus/core';
import { ALL_QUEUES } from '@stratus/queue';
import {
  createManaged,
  createTenant,
  databaseServersUnder,
  DEMO_INSTANCE,
  freePort,
  HttpClient,
  RESOURCE_QUEUES,
  testConfig,
  testDataSource,
  TestStack,
  waitFor,
  waitForDatabase,
  waitForDatabaseGone,
  waitForDrain,
  waitForInstance,
} from '@stratus/testing';
import { DataSource } from 'typeorm';

/** One sample of a scrape: metric name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, as much as prom-client writes: `name{a="x",b="y"} value`. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

describe('metrics of the api and the worker', () => {
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;
  let worker: HttpClient;
  let operator: Record<string, string>;

  beforeAll(async () => {
    const password = OperatorCredential.create(testConfig().DATA_DIR, { onlyIfUnset: false })!;
    operator = { authorization: `Basic ${Buffer.from(`operator:${password}`).toString('base64')}` };
    const workerPort = await freePort();
    stack = await TestStack.start({ WORKER_METRICS_LISTEN: `127.0.0.1:${workerPort}` });
    await stack.workerReady();
    db = await testDataSource();
    api = stack.http.with({ 'x-api-key': (await createTenant(db)).apiKey });
    worker = new HttpClient(`http://127.0.0.1:${workerPort}`);
    await waitFor('the worker to serve /metrics', async () => (await worker.get('/metrics').catch(() => null))?.status === 401, { timeoutMs: 60_000 });
    // Creates an earlier api-only suite left queued are this worker's to build: built first, they move no count a test compares.
    await stack.withQueues(RESOURCE_QUEUES, (queues) => waitForDrain(queues, { dataSource: db, timeoutMs: 300_000 }));
  }, 360_000);

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  const scrape = async (client: HttpClient): Promise<Sample[]> => {
    const res = await client.get('/metrics', operator);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return parse(res.text);
  };

  it.each([
    ['no credentials', {}],
    ['a wrong password', { authorization: `Basic ${Buffer.from('operator:guess').toString('base64')}` }],
    ['another user', { authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` }],
  ])('refuses %s with a 401 in the envelope, on both processes', async (_label, headers: Record<string, string>) => {
    for (const client of [stack.http, worker]) {
      const res = await client.get('/metrics', headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Basic');
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: 'operator credentials required' } });
    }
  });

  it('reports every queue by state, and resources by kind and status (zeros included), on the api', async () => {
    const samples = await scrape(stack.http);
    for (const queue of ALL_QUEUES) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(samples.filter((s) => s.name === 'stratus_queue_jobs' && s.labels.queue === queue && s.labels.state === state)).toHaveLength(1);
      }
    }
    for (const [kind, status] of [
      ['instance', 'ERROR'],
      ['database', 'ready'],
      ['cache', 'provisioning'],
      ['analytics', 'error'],
      ['volume', 'available'],
    ]) {
      expect(samples.filter((s) => s.name === 'stratus_resources' && s.labels.kind === kind && s.labels.status === status)).toHaveLength(1);
    }
  });

  it('moves as an instance is created and reaches ACTIVE, and as its process dies', async () => {
    const [apiBefore, workerBefore] = [await scrape(stack.http), await scrape(worker)];
    const created = await api.post('/v1/instances', { name: 'measured', ...DEMO_INSTANCE });
    expect(created.status).toBe(202);
    const active = await waitForInstance(api, created.body.id);
    expect((await api.get(`/v1/instances/${created.body.id}`)).status).toBe(200);

    const activeCount = (samples: Sample[]) => total(samples, 'stratus_resources', { kind: 'instance', status: 'ACTIVE' });
    // The api's counts are at most a few seconds old.
    const apiAfter = await waitFor('the api to count the ACTIVE instance', async () => {
      const samples = await scrape(stack.http);
      return activeCount(samples) === activeCount(apiBefore) + 1 && samples;
    });
    const requests = (samples: Sample[], labels: Record<string, string>) => total(samples, 'stratus_http_request_duration_seconds_count', labels);
    expect(requests(apiAfter, { method: 'POST', route: '/v1/instances', status: '202' })).toBe(requests(apiBefore, { method: 'POST', route: '/v1/instances', status: '202' }) + 1);
    expect(requests(apiAfter, { method: 'GET', route: '/v1/instances/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    // Route patterns only: no id of anything reaches a label.
    const apiText = (await stack.http.get('/metrics', operator)).text;
    expect(apiText).not.toContain(created.body.id);

    const workerAfter = await scrape(worker);
    const settled = { kind: 'instance', outcome: 'ACTIVE' };
    expect(total(workerAfter, 'stratus_resource_create_to_settled_seconds_count', settled)).toBe(
      total(workerBefore, 'stratus_resource_create_to_settled_seconds_count', settled) + 1,
    );
    // Its sum is at most the instance's age.
    const ageS = (Date.now() - Date.parse(created.body.created_at)) / 1000;
    const took = total(workerAfter, 'stratus_resource_create_to_settled_seconds_sum', settled) - total(workerBefore, 'stratus_resource_create_to_settled_seconds_sum', settled);
    expect(took).toBeGreaterThan(0);
    expect(took).toBeLessThanOrEqual(ageS);
    expect(total(workerAfter, 'stratus_job_pickup_seconds_count', { queue: 'instances' })).toBeGreaterThan(
      total(workerBefore, 'stratus_job_pickup_seconds_count', { queue: 'instances' }),
    );
    const runs = { queue: 'instances', job: 'instance.create', outcome: 'completed' };
    expect(total(workerAfter, 'stratus_job_run_seconds_count', runs)).toBe(total(workerBefore, 'stratus_job_run_seconds_count', runs) + 1);

    // Its process dies: the reconciler sees it stopped, and says it repaired the row.
    const repairs = (samples: Sample[]) => total(samples, 'stratus_reconciler_repairs_total', { reconciler: 'instances', action: 'observed_stopped' });
    const { pid } = (await (await fetch(`http://${active.metadata.privateIp}:3000/`)).json()) as { pid: number };
    process.kill(pid, 'SIGKILL');
    await waitForInstance(api, created.body.id, ['SHUTOFF']);
    expect(repairs(await scrape(worker))).toBe(repairs(workerAfter) + 1);
  });

  it('counts a failed job and an ERROR when an instance cannot boot', async () => {
    const workerBefore = await scrape(worker);
    const created = await api.post('/v1/instances', { name: 'broken', ...DEMO_INSTANCE, image_id: 'plain', user_data: 'exit 7\n' });
    expect((await waitForInstance(api, created.body.id, ['ERROR', 'ACTIVE'])).status).toBe('ERROR');

    const failed = { queue: 'instances', job: 'instance.create', final: 'true' };
    const errored = { kind: 'instance', outcome: 'ERROR' };
    // The row moves before the job is failed: wait for the worker's failed event.
    const workerAfter = await waitFor('the worker to count the failed job', async () => {
      const samples = await scrape(worker);
      return total(samples, 'stratus_jobs_failed_total', failed) === total(workerBefore, 'stratus_jobs_failed_total', failed) + 1 && samples;
    });
    expect(total(workerAfter, 'stratus_resource_create_to_settled_seconds_count', errored)).toBe(
      total(workerBefore, 'stratus_resource_create_to_settled_seconds_count', errored) + 1,
    );
    await waitFor('the api to count the instance in ERROR', async () => total(await scrape(stack.http), 'stratus_resources', { kind: 'instance', status: 'ERROR' }) >= 1);
  });

  it('labels a managed server by its collection: a cache that reaches ready is a cache', async () => {
    const workerBefore = await scrape(worker);
    const created = await createManaged(api, 'cache', { name: 'measured-cache' });
    await waitForDatabase(api, 'cache', created.body.id);
    const settled = { kind: 'cache', outcome: 'ready' };
    expect(total(await scrape(worker), 'stratus_resource_create_to_settled_seconds_count', settled)).toBe(
      total(workerBefore, 'stratus_resource_create_to_settled_seconds_count', settled) + 1,
    );
    // Every project's ready caches, this one among them, and as many as PostgreSQL holds.
    await waitFor('the api to count the ready caches', async () => {
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM managed_databases WHERE engine = 'redis' AND status = 'ready'`);
      return n >= 1 && total(await scrape(stack.http), 'stratus_resources', { kind: 'cache', status: 'ready' }) === n;
    });

    // Its server dies: the reconciler starts it again, and counts the repair once.
    const restarts = (samples: Sample[]) => total(samples, 'stratus_reconciler_repairs_total', { reconciler: 'databases', action: 'restarted_server' });
    const before = restarts(await scrape(worker));
    const pid = databaseServersUnder(stack.env.DATA_DIR).get(`redis-${created.body.id}`)!;
    process.kill(pid, 'SIGKILL');
    await waitFor('the worker to restart the cache server', async () => restarts(await scrape(worker)) >= before + 1, { timeoutMs: 60_000 });
    await waitFor('the restarted server', () => {
      const now = databaseServersUnder(stack.env.DATA_DIR).get(`redis-${created.body.id}`);
      return now !== undefined && now !== pid;
    });
    expect((await api.get(`/v1/cache/${created.body.id}`)).body.status).toBe('ready');
    expect((await api.delete(`/v1/cache/${created.body.id}`)).status).toBe(204);
    await waitForDatabaseGone(api, 'cache', created.body.id);
  });

  it('answers the worker envelope for anything but GET /metrics', async () => {
    expect((await worker.get('/other', operator)).body).toEqual({ error: { code: 'not_found', message: 'only /metrics is served here' } });
    expect((await worker.post('/metrics', {}, operator)).status).toBe(405);
  });
});
