/**
 * polling: what polling costs at 100,000 instances and 100,000 databases in
 * one project, through the real api process:
 *
 *   first and last page of GET /v1/instances and GET /v1/databases (p50, p99)
 *   a 304 poll (If-None-Match, nothing changed)
 *   a long poll (?wait=) woken by a status change: from the UPDATE's commit
 *     to the answer, for a get and for a list
 *   one reconcile sweep of instances and of databases over 1,000 and over
 *     10,000 non-terminal rows (the rest terminal), per resource
 *
 * One JSON object goes to stdout, progress to stderr. See bench/README.md.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. Only the api runs (no worker): rows are written by the bench, so
 * lists change only when it changes them. The sweeps run in this process
 * with the worker's reconcilers, their provider answering at once that
 * everything runs: what is measured is the sweep's own reading and judging,
 * not a provider's.
 */
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { ALL_QUEUES, redisConnection } from '@stratus/queue';
import { createTenant, resetTestInstallation, Tenant, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { ComputeDriver, DatabaseDriver } from '@stratus/providers';
import { Queue } from 'bullmq';
import { cpus } from 'node:os';
import { DataSource } from 'typeorm';
import { encodePageCursor } from '../apps/api/src/http/list-query';
import { DatabasesReconciler } from '../apps/worker/src/databases/databases.reconciler';
import { InstancesReconciler } from '../apps/worker/src/instances/instances.reconciler';
import { ResourceTurns } from '../apps/worker/src/jobs/resource-turns';
import { WorkClock } from '../apps/worker/src/jobs/work-clock';
import { PacketFilterSync } from '../apps/worker/src/security-groups/packet-filter.sync';
import { nearestRank, round } from './percentiles';

const ROWS = Number(process.env.BENCH_ROWS || 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS || 500);
const WAKES = Number(process.env.BENCH_WAKES || 20);
const SWEEP_SIZES = [1_000, 10_000];
const PAGE = 100;

const TARGETS = { page_p99_ms: 50, last_over_first_p99: 1.5, sweep_10k_ms: 1_000 };

function log(message: string): void {
  process.stderr.write(`[polling] ${message}\n`);
}

function percentiles(ms: number[]): { p50_ms: number; p99_ms: number; n: number } {
  return { p50_ms: round(nearestRank(ms, 0.5)), p99_ms: round(nearestRank(ms, 0.99)), n: ms.length };
}

type Latencies = { p50_ms: number; p99_ms: number; n: number; bytes: number };

/**
 * `REQUESTS` sequential GETs of each of `cases` (after a warm-up), taken in
 * turn (first, last, 304, first, ...) so that load from elsewhere on a shared
 * machine falls on each alike: latencies, and the size of the answer.
 */
async function measure(base: string, cases: Array<{ path: string; headers: Record<string, string>; expected: number }>): Promise<Latencies[]> {
  const latencies: number[][] = cases.map(() => []);
  const bytes: number[] = cases.map(() => 0);
  for (let i = 0; i < REQUESTS + 20; i++) {
    for (const [c, { path, headers, expected }] of cases.entries()) {
      const started = process.hrtime.bigint();
      const res = await fetch(base + path, { headers });
      const body = await res.arrayBuffer();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (res.status !== expected) throw new Error(`${path}: ${res.status}, expected ${expected}`);
      if (i >= 20) latencies[c].push(ms);
      bytes[c] = body.byteLength;
    }
  }
  return latencies.map((l, c) => ({ ...percentiles(l), bytes: bytes[c] }));
}

/** One project's 100,000 instances and 100,000 relational databases, each a millisecond older than the next, all terminal. */
async function seed(db: DataSource, tenant: Tenant): Promise<void> {
  await db.query(
    `INSERT INTO instances (project_id, user_id, name, image_id, image_name, flavor_id, network_id, keypair_name, security_group_ids, port, address, status, metadata, created_at, updated_at)
     SELECT $1, $2, 'bench-' || g, 'plain', 'plain', 'm1.small', 'private', 'default', '{}', 3000,
            ('127.90.0.0'::inet + g), 'ERROR', '{}', now() - g * interval '1 millisecond', now()
     FROM generate_series(1, $3) g`,
    [tenant.projectId, tenant.userId, ROWS],
  );
  await db.query(
    `INSERT INTO managed_databases (engine, project_id, user_id, name, db_name, db_user, version, password_verifier, flavor_id, network_id, keypair_name, security_group_ids, address, port, status, created_at, updated_at)
     SELECT 'postgres', $1, $2, 'bench-' || g, 'app', 'app', '16', 'none', 'm1.small', 'private', 'default', '{}',
            ('127.91.0.0'::inet + g), 5432, 'error', now() - g * interval '1 millisecond', now()
     FROM generate_series(1, $3) g`,
    [tenant.projectId, tenant.userId, ROWS],
  );
  await db.query('VACUUM ANALYZE instances');
  await db.query('VACUUM ANALYZE managed_databases');
}

/** The cursor that asks for the last page of `PAGE` rows: the key of the row just before it. */
async function lastPageCursor(db: DataSource, table: string, projectId: string): Promise<string> {
  const [row] = await db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t, id::text AS i FROM ${table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [projectId, ROWS - PAGE - 1],
  );
  return encodePageCursor({ createdAt: row.t, id: row.i });
}

/**
 * `WAKES` long polls of `path`, each woken by a status change made once the
 * poll waits: milliseconds from the change's commit to the answer.
 */
async function wakes(base: string, path: string, headers: Record<string, string>, change: (i: number) => Promise<void>): Promise<{ p50_ms: number; p99_ms: number; n: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    const first = await fetch(base + path, { headers });
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const answered = fetch(`${base}${path}${path.includes('?') ? '&' : '?'}wait=30`, { headers: { ...headers, 'if-none-match': etag } }).then(async (res) => {
      await res.arrayBuffer();
      return [res.status, process.hrtime.bigint()] as const;
    });
    // Time for the poll to reach the api and start waiting; an early change would only make it answer at once.
    await new Promise((r) => setTimeout(r, 300));
    await change(i);
    const changed = process.hrtime.bigint();
    const [status, at] = await answered;
    if (status !== 200) throw new Error(`long poll of ${path} answered ${status}`);
    latencies.push(Number(at - changed) / 1e6);
  }
  return percentiles(latencies);
}

/** Reconcilers as the worker makes them, with a provider that answers at once that everything runs. */
function reconcilers(db: DataSource) {
  const compute = {
    observeAll: async (ids: string[]) => new Map(ids.map((id) => [id, { running: true, ready: true, limits: 'bench' }])),
  } as unknown as ComputeDriver;
  const databases = { observe: async () => ({ running: true, ready: true }) } as unknown as DatabaseDriver;
  const packetFilter = { sync: async () => undefined } as unknown as PacketFilterSync;
  const queue = {} as Queue;
  const config = testConfig();
  return {
    instances: new InstancesReconciler(db, compute, queue, packetFilter, config, new WorkClock(db, queue)),
    databases: new DatabasesReconciler(db, databases, queue, config, new ResourceTurns(config), new WorkClock(db, queue)),
  };
}

async function sweeps(db: DataSource, tenant: Tenant) {
  const r = reconcilers(db);
  const results: Record<string, Record<string, { ms: number; us_per_resource: number }>> = { instances: {}, databases: {} };
  for (const n of SWEEP_SIZES) {
    // `n` live rows (ACTIVE and running, ready and ready: nothing to repair), the rest terminal.
    await db.query(`UPDATE instances SET status = CASE WHEN name IN (SELECT 'bench-' || g FROM generate_series(1, $2) g) THEN 'ACTIVE' ELSE 'ERROR' END WHERE project_id = $1`, [
      tenant.projectId,
      n,
    ]);
    await db.query(
      `UPDATE managed_databases SET status = CASE WHEN name IN (SELECT 'bench-' || g FROM generate_series(1, $2) g) THEN 'ready' ELSE 'error' END WHERE project_id = $1`,
      [tenant.projectId, n],
    );
    await db.query('VACUUM ANALYZE instances');
    await db.query('VACUUM ANALYZE managed_databases');
    for (const [what, sweep] of [
      ['instances', () => r.instances.sweep()],
      ['databases', () => r.databases.sweep()],
    ] as const) {
      await sweep(); // warm
      const runs: number[] = [];
      for (let i = 0; i < 9; i++) {
        const started = process.hrtime.bigint();
        await sweep();
        runs.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const ms = percentiles(runs).p50_ms;
      results[what][String(n)] = { ms, us_per_resource: round((ms * 1000) / n) };
      log(`sweep of ${n} live ${what}: ${ms} ms (median of 9)`);
    }
  }
  return results;
}

async function main(): Promise<number> {
  const started = Date.now();
  const config = testConfig();
  log(`slot ${process.env.STRATUS_TEST_SLOT}: resetting ${config.DATABASE_URL.replace(/^.*\//, '')}`);
  await resetTestInstallation();
  let stack: TestStack | undefined;
  let db: DataSource | undefined;
  try {
    log('starting the api (no worker)');
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    const tenant = await createTenant(db, `bench-${Date.now()}`);
    log(`seeding ${ROWS} instances and ${ROWS} databases`);
    await seed(db, tenant);
    const base = stack.http.baseUrl;
    const key = { 'x-api-key': tenant.apiKey };

    const pages: Record<string, unknown> = {};
    for (const [list, table] of [
      ['instances', 'instances'],
      ['databases', 'managed_databases'],
    ] as const) {
      const cursor = await lastPageCursor(db, table, tenant.projectId);
      const etag = (await fetch(`${base}/v1/${list}`, { headers: key })).headers.get('etag')!;
      const [first, last, notModified] = await measure(base, [
        { path: `/v1/${list}`, headers: key, expected: 200 },
        { path: `/v1/${list}?cursor=${cursor}`, headers: key, expected: 200 },
        { path: `/v1/${list}`, headers: { ...key, 'if-none-match': etag }, expected: 304 },
      ]);
      pages[list] = { first, last, not_modified: notModified, last_over_first_p50: round(last.p50_ms / first.p50_ms), last_over_first_p99: round(last.p99_ms / first.p99_ms) };
      log(`${list}: ${JSON.stringify(pages[list])}`);
    }

    const [instance] = await db.query(`SELECT id FROM instances WHERE project_id = $1 AND name = 'bench-1'`, [tenant.projectId]);
    const [database] = await db.query(`SELECT id FROM managed_databases WHERE project_id = $1 AND name = 'bench-1'`, [tenant.projectId]);
    const flip = (table: string, id: string | number, a: string, b: string) => async (i: number) => {
      await db!.query(`UPDATE ${table} SET status = $2, updated_at = now() WHERE id = $1`, [id, i % 2 ? a : b]);
    };
    const longPolls = {
      instance_get: await wakes(base, `/v1/instances/${instance.id}`, key, flip('instances', instance.id, 'ERROR', 'SHUTOFF')),
      database_get: await wakes(base, `/v1/databases/${database.id}`, key, flip('managed_databases', database.id, 'error', 'ready')),
      instances_first_page: await wakes(base, '/v1/instances', key, flip('instances', instance.id, 'ERROR', 'SHUTOFF')),
    };
    log(`long polls, change to answer: ${JSON.stringify(longPolls)}`);

    const sweep = await sweeps(db, tenant);

    const pageP99s = Object.values(pages).flatMap((p: any) => [p.first.p99_ms, p.last.p99_ms, p.not_modified.p99_ms]);
    const ratios = Object.values(pages).map((p: any) => p.last_over_first_p99 as number);
    const perResource = (what: string) => sweep[what]['10000'].us_per_resource / sweep[what]['1000'].us_per_resource;
    const report = {
      bench: 'polling',
      rows: { instances: ROWS, databases: ROWS },
      pages,
      long_polls: longPolls,
      sweeps: sweep,
      targets: {
        ...TARGETS,
        page_p99_met: Math.max(...pageP99s) < TARGETS.page_p99_ms,
        last_over_first_met: Math.max(...ratios) <= TARGETS.last_over_first_p99,
        sweep_10k_met: Math.max(sweep.instances['10000'].ms, sweep.databases['10000'].ms) < TARGETS.sweep_10k_ms,
        sweep_cost_ratio_10k_over_1k: { instances: round(perResource('instances')), databases: round(perResource('databases')) },
      },
      config: {
        requests: REQUESTS,
        wakes: WAKES,
        slot: Number(process.env.STRATUS_TEST_SLOT),
        cpus: cpus().length,
        node: process.version,
        elapsed_s: round((Date.now() - started) / 1000, 1),
      },
    };
    process.stdout.write(JSON.stringify(report) + '\n');
    return 0;
  } finally {
    log('cleaning up');
    await stack?.stop();
    if (db) for (const table of ['instances', 'managed_databases']) await db.query(`TRUNCATE ${table} CASCADE`).catch(() => undefined);
    await db?.destroy();
    for (const name of ALL_QUEUES) {
      const q = new Queue(name, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
