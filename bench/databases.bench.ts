/**
 * databases: time from POST to ready of each managed database engine
 * (PostgreSQL, Redis, ClickHouse, MariaDB)
 * (median and p95 of BENCH_RUNS, default 10), and in the same run the raw
 * time to start the same server without the control plane: the local
 * provider's driver called directly (copy of the template, spawn as the run
 * user, wait until it answers, apply the user, database and extensions).
 * ratio = control plane / raw. One JSON object goes to stdout; progress to
 * stderr. See bench/README.md.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 4: database
 * stratus_test_4, .data/test-4, pool 127.82.0.0/16), which it resets first.
 */
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '4';

import { databaseServerKey, DatabaseEngine, ENGINE_PORTS, engineVerifier, generateDatabasePassword } from '@stratus/core';
import { DatabaseDriver, HostAccounts, installationId, localDatabaseDirs } from '@stratus/providers';
import { QUEUES, redisConnection, resourceJobId } from '@stratus/queue';
import { Queue } from 'bullmq';
import { Pool } from 'undici';
import { createTenant, DB_PLACEMENT, ensureUntilReady, resetTestInstallation, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalDatabaseDriver } from '../libs/providers/src/local/databases/local-databases';
import { nearestRank } from './percentiles';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS || 10));
const POLL_MS = Number(process.env.BENCH_POLL_MS || 2);

const ALL_ENGINES: Array<{ engine: DatabaseEngine; collection: string; body: Record<string, unknown>; targetMs: number }> = [
  { engine: 'postgres', collection: 'databases', body: { version: '16' }, targetMs: 1000 },
  { engine: 'redis', collection: 'cache', body: {}, targetMs: 300 },
  { engine: 'clickhouse', collection: 'analytics', body: {}, targetMs: 2000 },
  { engine: 'mariadb', collection: 'relational-databases', body: { engine: 'mariadb' }, targetMs: 2000 },
];

/** What the API would store for each engine, defaults applied (the direct start's spec). */
const DIRECT_SPEC: Record<string, { version: string | null; dbName: string | null; dbUser: string | null }> = {
  postgres: { version: '16', dbName: 'app', dbUser: 'appuser' },
  redis: { version: '7', dbName: null, dbUser: null },
  clickhouse: { version: null, dbName: 'analytics', dbUser: 'appuser' },
  mariadb: { version: '10.11', dbName: 'app', dbUser: 'appuser' },
};

/** BENCH_ENGINES (e.g. `redis,clickhouse`) runs some engines only. */
const ENGINES = ALL_ENGINES.filter(({ engine }) => !process.env.BENCH_ENGINES || process.env.BENCH_ENGINES.split(',').includes(engine));

const log = (msg: string) => process.stderr.write(`[bench:databases] ${msg}\n`);

function stats(samples: number[]): { median_ms: number; p95_ms: number; min_ms: number; max_ms: number } {
  const round = (n: number) => Math.round(n * 10) / 10;
  return { median_ms: round(nearestRank(samples, 0.5)), p95_ms: round(nearestRank(samples, 0.95)), min_ms: round(Math.min(...samples)), max_ms: round(Math.max(...samples)) };
}

/**
 * The polling client: one keep-alive connection through undici's Pool. A
 * client polling every few milliseconds shares the machine's cores with the
 * server it times; with `fetch` each request cost the client noticeably more
 * than the api, time spent beside the very start being measured (bench/README.md).
 */
class PollingClient {
  private readonly pool: Pool;

  constructor(
    baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {
    this.pool = new Pool(baseUrl, { connections: 1 });
  }

  async request(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
    const res = await this.pool.request({
      method,
      path,
      headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, text };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Where one create's time went, in wall-clock milliseconds (the clocks of the
 * bench, the api, the worker and PostgreSQL, all on one machine): POST sent
 * to job queued (the api's checks and create), queued to picked up by the
 * worker, picked up to `ready` written (row load, server start, status
 * update: the row's `updated_at`), written to the client's first `ready`
 * answer (polling); and the POST's own answer time.
 */
interface Phases {
  post_answer_ms: number;
  to_queued_ms: number;
  to_picked_up_ms: number;
  to_ready_written_ms: number;
  to_seen_ready_ms: number;
}

/** POST, then poll GET as fast as a client may until ready; returns milliseconds and the phases. */
async function throughApi(
  api: PollingClient,
  jobs: Queue,
  engine: DatabaseEngine,
  collection: string,
  body: Record<string, unknown>,
  name: string,
): Promise<{ ms: number; phases: Phases }> {
  const sent = Date.now();
  const started = performance.now();
  const created = await api.request('POST', `/v1/${collection}`, { ...DB_PLACEMENT, ...body, name });
  const answered = Date.now();
  if (created.status !== 202) throw new Error(`create ${collection}: ${created.status} ${created.text}`);
  let readyAt: number;
  for (;;) {
    const res = await api.request('GET', `/v1/${collection}/${created.body.id}`);
    if (res.body.status === 'ready') {
      readyAt = Date.parse(res.body.updated_at);
      break;
    }
    if (res.body.status === 'error') throw new Error(`${collection}/${created.body.id}: ${res.body.status_reason}`);
    await sleep(POLL_MS);
  }
  const elapsed = performance.now() - started;
  const seen = Date.now();
  const job = await jobs.getJob(resourceJobId('database.create', databaseServerKey({ engine, id: created.body.id }), 1));
  if (!job?.processedOn) throw new Error(`no create job ran for ${collection}/${created.body.id}`);
  const phases: Phases = {
    post_answer_ms: answered - sent,
    to_queued_ms: job.timestamp - sent,
    to_picked_up_ms: job.processedOn - job.timestamp,
    to_ready_written_ms: readyAt - job.processedOn,
    to_seen_ready_ms: seen - readyAt,
  };
  await api.request('DELETE', `/v1/${collection}/${created.body.id}`);
  for (;;) {
    if ((await api.request('GET', `/v1/${collection}/${created.body.id}`)).status === 404) break;
    await sleep(20);
  }
  return { ms: elapsed, phases };
}

/** Median of each phase over the runs. */
function medianPhases(runs: Phases[]): Phases {
  const median = (k: keyof Phases) => stats(runs.map((p) => p[k])).median_ms;
  return {
    post_answer_ms: median('post_answer_ms'),
    to_queued_ms: median('to_queued_ms'),
    to_picked_up_ms: median('to_picked_up_ms'),
    to_ready_written_ms: median('to_ready_written_ms'),
    to_seen_ready_ms: median('to_seen_ready_ms'),
  };
}

/**
 * Waits until the worker has made its spare again (DATABASE_SPARES): a
 * started Redis (its unix socket is there), a PostgreSQL or MariaDB data
 * folder copy (whole, none half-made). Without spares there is nothing to wait for.
 */
async function madeAhead(dataDir: string, engine: DatabaseEngine): Promise<void> {
  // ClickHouse has no spares or copies made ahead.
  if (process.env.DATABASE_SPARES === '0' || engine === 'clickhouse') return;
  const { servers, templates } = localDatabaseDirs(dataDir);
  const madeCopy = (copies: string, prefix: string) =>
    existsSync(copies) && readdirSync(copies).some((n) => n.startsWith(prefix)) && !readdirSync(copies).some((n) => n.startsWith('.tmp-'));
  const ready = () =>
    engine === 'redis'
      ? readdirSync(servers).some((n) => n.startsWith('spare-redis-') && existsSync(join(servers, n, 'run', 'redis.sock')))
      : engine === 'mariadb'
        ? madeCopy(join(templates, 'mariadb-copies'), 'socket-root-')
        : madeCopy(join(templates, 'copies'), 'pg-scram-');
  for (const deadline = Date.now() + 30_000; !ready(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`the worker made no spare ${engine} within 30 s`);
  }
}

/** The same server, started by the driver alone: no API, no database row, no queue, no worker. */
async function direct(driver: DatabaseDriver, engine: DatabaseEngine, i: number, address: string): Promise<number> {
  const password = generateDatabasePassword();
  const key = `${engine}-bench${i}`;
  const started = performance.now();
  // Looked at as often as the driver used to probe while it waited, so the times compare with earlier runs.
  await ensureUntilReady(
    driver,
    {
      key,
      engine,
      ...DIRECT_SPEC[engine],
      address,
      port: ENGINE_PORTS[engine],
      passwordVerifier: await engineVerifier(engine, password),
      superuser: false,
      extensions: [],
      ha: false,
      memberAddresses: [],
    },
    { intervalMs: 2 },
  );
  const elapsed = performance.now() - started;
  await driver.delete(key);
  return elapsed;
}

async function main(): Promise<void> {
  log(`resetting slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({ LOG_LEVEL: 'warn' });
  const db = await testDataSource();
  const tenant = await createTenant(db);
  const api = new PollingClient(stack.http.baseUrl, { 'x-api-key': tenant.apiKey });
  const config = testConfig();
  // The bench's direct servers use the top of the pool, far from what the API leases.
  const driver = createLocalDatabaseDriver(config, new HostAccounts(installationId(config.DATA_DIR)));
  const base = config.LOCAL_ADDRESS_POOL.split('.').slice(0, 2).join('.');
  const jobs = new Queue(QUEUES.databases, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
  const results: Record<string, unknown> = {};
  try {
    for (const { engine, collection, body, targetMs } of ENGINES) {
      log(`${engine}: warm-up (template, caches)`);
      await throughApi(api, jobs, engine, collection, body, `warm-${collection}`);
      await direct(driver, engine, 0, `${base}.250.1`);
      await madeAhead(config.DATA_DIR, engine);
      const viaApi: number[] = [];
      const phases: Phases[] = [];
      const raw: number[] = [];
      // Alternate, so load from elsewhere on a shared machine falls on both.
      for (let i = 0; i < RUNS; i++) {
        const run = await throughApi(api, jobs, engine, collection, body, `bench-${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`);
        viaApi.push(run.ms);
        phases.push(run.phases);
        // The worker's replacement spare (or folder copy) is made first: not beside the raw start, and ready for the next create.
        await madeAhead(config.DATA_DIR, engine);
        raw.push(await direct(driver, engine, i + 1, `${base}.250.${(i % 200) + 2}`));
        log(`${engine} run ${i + 1}/${RUNS}: api ${viaApi[i].toFixed(0)} ms ${JSON.stringify(run.phases)}, direct ${raw[i].toFixed(0)} ms`);
      }
      const a = stats(viaApi);
      const r = stats(raw);
      results[engine] = {
        post_to_ready: a,
        post_to_ready_phases: medianPhases(phases),
        raw_direct_start: r,
        ratio_median: Math.round((a.median_ms / r.median_ms) * 100) / 100,
        ratio_p95: Math.round((a.p95_ms / r.p95_ms) * 100) / 100,
        target_ready_ms: targetMs,
        meets_ready_target: a.median_ms <= targetMs && a.p95_ms <= targetMs,
        meets_ratio_target: a.median_ms / r.median_ms <= 1.5,
      };
    }
  } finally {
    await stack.stop();
    await jobs.close();
    await api.close();
    await db.destroy();
  }
  process.stdout.write(
    JSON.stringify({ bench: 'databases', runs: RUNS, poll_interval_ms: POLL_MS, data_dir: localDatabaseDirs(config.DATA_DIR).servers, ...results }, null, 2) + '\n',
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
