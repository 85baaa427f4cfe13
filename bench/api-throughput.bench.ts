/**
 * api-throughput: requests/second and latency (p50, p99) of the real Stratus
 * API process against a bare Fastify + pg server (bench/bare-server.ts) that
 * does the same SQL and queue work, for
 *
 *   flavors_read     GET /v1/flavors    (API-key check + keyset page)
 *   instance_create  POST /v1/instances (API-key check + catalog lookups +
 *                                        lease/instance/outbox/proxy-host
 *                                        transaction + enqueue)
 *
 * and the ratio api/bare of each throughput. One JSON object goes to stdout;
 * progress goes to stderr. See bench/README.md.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2: database
 * stratus_test_2, queue prefix stratus-test-2, .data/test-2, pool
 * 127.80.0.0/16), which it resets first. The worker is not started: created
 * instances stay rows and queued jobs, and are deleted after each slice of
 * creates and at the end.
 */
// The slot is chosen before anything reads the test environment; a
// STRATUS_TEST_SLOT exported for a test run in the same shell is not reused.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { AppConfig } from '@stratus/core';
import { ALL_QUEUES, JOB_QUEUE, redisConnection } from '@stratus/queue';
import { createTenant, DEMO_INSTANCE, resetTestInstallation, Tenant, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { Queue } from 'bullmq';
import { ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { round } from './percentiles';

// autocannon ships no types; only what is used here.
interface AutocannonResult {
  /** whole milliseconds (autocannon's histogram resolution) */
  latency: { p50: number; p99: number };
  /** seconds */
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
/** A slice's result, before aggregation (skipAggregateResult). */
type RawResult = AutocannonResult & { totalCompletedRequests: number };
interface AutocannonInstance extends Promise<RawResult> {
  stop(): void;
}
type Autocannon = ((opts: Record<string, unknown>) => AutocannonInstance) & {
  aggregateResult(results: RawResult[], opts: Record<string, unknown>): AutocannonResult;
};
// autocannon ships no types: required, and typed by hand above.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const DURATION_S = Number(process.env.BENCH_DURATION_S || 8);
/**
 * The measured time of each target is cut into this many slices, run
 * alternately (bare, api, api, bare, ...), so that a burst of load from
 * elsewhere on a shared machine falls on both sides rather than on one.
 */
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES || 4));
const WARMUP_S = Number(process.env.BENCH_WARMUP_S || 2);
const ALL_CASES: CaseName[] = ['flavors_read', 'instance_create'];
/** BENCH_CASES=flavors_read runs one case only (for profiling); the report then holds only it. */
const CASES = ALL_CASES.filter((c) => !process.env.BENCH_CASES || process.env.BENCH_CASES.split(',').includes(c));
/** The goal for reads: the API keeps at least this share of the bare server's throughput. */
const READ_TARGET = 0.5;

type Target = 'api' | 'bare';
type CaseName = 'flavors_read' | 'instance_create';

interface Measured {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non_2xx: number;
  errors: number;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

let current: AutocannonInstance | undefined;
let interrupted = false;

async function load(url: string, tenant: Tenant, name: CaseName, seconds: number): Promise<RawResult> {
  const headers: Record<string, string> = { 'x-api-key': tenant.apiKey };
  const request =
    name === 'flavors_read'
      ? { url: `${url}/v1/flavors`, method: 'GET' }
      : {
          url: `${url}/v1/instances`,
          method: 'POST',
          body: JSON.stringify({ name: 'bench', ...DEMO_INSTANCE }),
        };
  if (request.method === 'POST') headers['content-type'] = 'application/json';
  current = autocannon({
    ...request,
    headers,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    skipAggregateResult: true,
  });
  let result: RawResult | undefined;
  try {
    result = await current;
  } catch (err) {
    if (!interrupted) throw err;
  } finally {
    current = undefined;
  }
  // Stopped by a signal: whatever autocannon returned is not a measurement.
  if (interrupted || !result) throw new Error('interrupted');
  return result;
}

/** Throughput over all slices (completed requests / time), latency from the merged histograms. */
function summarize(url: string, slices: RawResult[]): Measured {
  const merged = autocannon.aggregateResult(slices, { url, connections: CONNECTIONS });
  const requests = slices.reduce((n, r) => n + r.totalCompletedRequests, 0);
  const seconds = slices.reduce((n, r) => n + r.duration, 0);
  return {
    rps: round(requests / seconds, 1),
    p50_ms: merged.latency.p50,
    p99_ms: merged.latency.p99,
    requests,
    non_2xx: merged.non2xx,
    errors: merged.errors + merged.timeouts,
  };
}

/** Starts the bare server as a child process; resolves with its base URL. */
async function startBare(config: AppConfig): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(__dirname, 'bare-server.js'), [], {
    env: {
      ...process.env,
      DATABASE_URL: config.DATABASE_URL,
      DATA_DIR: config.DATA_DIR,
      QUEUE_PREFIX: config.QUEUE_PREFIX,
      BENCH_REDIS: JSON.stringify(redisConnection(config.REDIS_URL)),
      INSTANCE_BUILD_DEADLINE_MS: String(config.INSTANCE_BUILD_DEADLINE_MS),
      DNS_DOMAIN_SUFFIX: config.DNS_DOMAIN_SUFFIX,
    },
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Tables whose rows belong to an instance (proxy hosts, volumes, ...), found by their instance_id column. */
async function instanceTables(db: DataSource): Promise<string[]> {
  const rows: Array<{ table_name: string }> = await db.query(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'instance_id' ORDER BY 1`,
  );
  return rows.map((r) => r.table_name);
}

/**
 * Removes what creates left: the tenant's instances, any address leases a
 * worker gave them, outbox rows and rows of other tables that name them, and
 * the queued jobs. Vacuumed so that the next case starts from the same table
 * state.
 */
async function removeCreated(db: DataSource, queues: Queue[], tenant: Tenant): Promise<number> {
  await settle(db, tenant);
  const tables = await instanceTables(db);
  const count = await db.transaction(async (m) => {
    const ids = (await m.query('SELECT id::text AS id FROM instances WHERE project_id = $1', [tenant.projectId])).map((r: { id: string }) => r.id);
    if (ids.length === 0) return 0;
    await m.query(`DELETE FROM outbox WHERE payload->>'instanceId' = ANY($1) OR payload->>'proxyHostId' IN (SELECT id::text FROM proxy_hosts WHERE instance_id::text = ANY($1))`, [
      ids,
    ]);
    for (const table of tables) await m.query(`DELETE FROM "${table}" WHERE instance_id::text = ANY($1)`, [ids]);
    await m.query(`DELETE FROM address_leases WHERE resource_kind = 'instance' AND resource_id = ANY($1)`, [ids]);
    await m.query('DELETE FROM instances WHERE id::text = ANY($1)', [ids]);
    return ids.length as number;
  });
  await db.query(`VACUUM ANALYZE instances, address_leases, outbox${tables.map((t) => `, "${t}"`).join('')}`);
  for (const queue of queues) await queue.obliterate({ force: true });
  return count;
}

/**
 * What one create left in the database, without what differs by nature
 * (ids, address, times, generated names): the instance row and how many rows
 * of each related table name it.
 */
async function footprint(db: DataSource, id: string): Promise<Record<string, unknown>> {
  const [row] = await db.query('SELECT * FROM instances WHERE id = $1', [id]);
  if (!row) return { instance: null };
  const { id: _id, address: _a, created_at: _c, updated_at: _u, build_deadline: _b, project_id: _p, ...rest } = row;
  const related: Record<string, number> = {};
  for (const table of await instanceTables(db)) {
    related[table] = (await db.query(`SELECT count(*)::int AS n FROM "${table}" WHERE instance_id = $1`, [id]))[0].n;
  }
  related.address_leases = (await db.query('SELECT count(*)::int AS n FROM address_leases WHERE resource_id = $1', [id]))[0].n;
  const jobs = () =>
    db.query<{ job_name: string; dispatched: boolean }[]>(
      `SELECT job_name, dispatched_at IS NOT NULL AS dispatched FROM outbox
        WHERE payload->>'instanceId' = $1 OR payload->>'proxyHostId' IN (SELECT id::text FROM proxy_hosts WHERE instance_id::text = $1) ORDER BY job_name`,
      [id],
    );
  // Both servers dispatch after the response, not awaited: give that a moment before comparing.
  let outbox = await jobs();
  for (let i = 0; i < 50 && outbox.some((j) => !j.dispatched); i++) {
    await new Promise((r) => setTimeout(r, 100));
    outbox = await jobs();
  }
  return { instance: { ...rest, metadata: Object.keys(row.metadata).sort() }, related, outbox };
}

/**
 * Waits for the creates still in flight when the load generator stopped (the
 * servers finish requests whose clients are gone): the tenant's instance
 * count must stay the same for a second.
 */
async function settle(db: DataSource, tenant: Tenant): Promise<void> {
  const count = async () => (await db.query('SELECT count(*)::int AS n FROM instances WHERE project_id = $1', [tenant.projectId]))[0].n as number;
  let last = await count();
  for (let stable = 0, rounds = 0; stable < 4 && rounds < 120; rounds++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await count();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

/**
 * Both servers answer the benchmarked requests alike, and one create of each
 * leaves the same rows, before anything is measured: a guard against the
 * bare server drifting from the API's queries.
 */
async function checkEquivalent(urls: Record<Target, string>, tenant: Tenant, db: DataSource): Promise<void> {
  const headers = { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' };
  const answers: Record<string, unknown>[] = [];
  for (const url of [urls.api, urls.bare]) {
    const flavors = await fetch(`${url}/v1/flavors`, { headers });
    const created = await fetch(`${url}/v1/instances`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench', ...DEMO_INSTANCE }),
    });
    const body = (await created.json()) as Record<string, unknown>;
    answers.push({
      flavors: [flavors.status, await flavors.text()],
      created: [created.status, Object.keys(body).sort(), body.status],
      rows: typeof body.id === 'string' ? await footprint(db, body.id) : null,
    });
  }
  const [api, bare] = answers.map((a) => JSON.stringify(a));
  if (api !== bare) throw new Error(`the bare server does not do what the api does:\napi:  ${api}\nbare: ${bare}`);
  if ((answers[0].flavors as unknown[])[0] !== 200 || (answers[0].created as unknown[])[0] !== 202) {
    throw new Error(`unexpected answers: ${api}`);
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const config = testConfig();
  log(`slot ${process.env.STRATUS_TEST_SLOT}: resetting ${config.DATABASE_URL.replace(/^.*\//, '')}, queues ${config.QUEUE_PREFIX}`);
  await resetTestInstallation();

  let stack: TestStack | undefined;
  let bare: ChildProcess | undefined;
  let db: DataSource | undefined;
  let tenant: Tenant | undefined;
  // Where a create's jobs go: the instance's and its proxy host's listener.
  const queues = [JOB_QUEUE['instance.create'], JOB_QUEUE['host.apply']].map(
    (name) => new Queue(name, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX }),
  );
  process.once('SIGINT', () => {
    interrupted = true;
    current?.stop();
  });

  try {
    log('starting the api (no worker)');
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    tenant = await createTenant(db, `bench-${Date.now()}`);
    const bareServer = await startBare(config);
    bare = bareServer.child;
    const urls: Record<Target, string> = { api: stack.http.baseUrl, bare: bareServer.url };
    await checkEquivalent(urls, tenant, db);
    await removeCreated(db, queues, tenant);

    const results = {} as Partial<Record<CaseName, Record<Target, Measured>>>;
    const sliceSeconds = DURATION_S / SLICES;
    for (const name of CASES) {
      const creates = name === 'instance_create';
      for (const target of ['bare', 'api'] as Target[]) {
        log(`${name} / ${target}: warm-up ${WARMUP_S}s`);
        await load(urls[target], tenant, name, WARMUP_S);
        if (creates) await removeCreated(db, queues, tenant);
      }
      log(`${name}: measuring ${DURATION_S}s per server in ${SLICES} alternating slices, ${CONNECTIONS} connections`);
      const slices: Record<Target, RawResult[]> = { bare: [], api: [] };
      for (let i = 0; i < SLICES; i++) {
        for (const target of (i % 2 ? ['api', 'bare'] : ['bare', 'api']) as Target[]) {
          slices[target].push(await load(urls[target], tenant, name, sliceSeconds));
          // Each slice of creates starts from the same tables: none of the bench's instances.
          if (creates) await removeCreated(db, queues, tenant);
        }
      }
      results[name] = { bare: summarize(urls.bare, slices.bare), api: summarize(urls.api, slices.api) };
      for (const target of ['bare', 'api'] as Target[]) log(`${name} / ${target}: ${JSON.stringify(results[name][target])}`);
    }

    const ratios = Object.fromEntries(CASES.map((name) => [name, round(results[name]!.api.rps / results[name]!.bare.rps)]));
    const failed = Object.values(results).some((byTarget) => Object.values(byTarget).some((m) => m.non_2xx > 0 || m.errors > 0));
    const report = {
      bench: 'api-throughput',
      valid: !failed,
      results,
      ratios,
      target: { flavors_read_min_ratio: READ_TARGET, met: ratios.flavors_read === undefined ? null : ratios.flavors_read >= READ_TARGET },
      config: {
        connections: CONNECTIONS,
        duration_s: DURATION_S,
        slices: SLICES,
        warmup_s: WARMUP_S,
        slot: Number(process.env.STRATUS_TEST_SLOT),
        cpus: cpus().length,
        node: process.version,
        elapsed_s: round((Date.now() - started) / 1000, 1),
      },
    };
    process.stdout.write(JSON.stringify(report) + '\n');
    if (failed) log('some requests failed (non_2xx or errors above): the numbers are not comparable');
    return failed ? 1 : 0;
  } finally {
    log('cleaning up');
    // Servers first, so that no create is still in flight while its rows are deleted.
    if (bare) await stopChild(bare);
    await stack?.stop();
    if (db && tenant) {
      await removeCreated(db, queues, tenant).catch((err) => log(`cleanup of created rows failed: ${err}`));
      await db.query('DELETE FROM api_keys WHERE project_id = $1', [tenant.projectId]).catch(() => undefined);
      await db.query('DELETE FROM projects WHERE id = $1', [tenant.projectId]).catch(() => undefined);
    }
    for (const queue of queues) await queue.close();
    await db?.destroy();
    // Every queue of the slot: the api's queue handles leave meta keys even where nothing was added.
    for (const name of ALL_QUEUES) {
      const q = new Queue(name, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
      await q.obliterate({ force: true }).catch((err) => log(`obliterate ${name} failed: ${err}`));
      await q.close();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`failed: ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
