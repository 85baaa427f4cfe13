/**
 * databases: time from POST to ready of each managed database engine
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

import { DatabaseEngine, ENGINE_PORTS, generateDatabasePassword, scramSha256Verifier, sha256Hex } from '@stratus/core';
import { DatabaseDriver, localDatabaseDirs } from '@stratus/providers';
import { createTenant, DB_PLACEMENT, HttpClient, resetTestInstallation, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalDatabaseDriver } from '../libs/providers/src/local/databases/local-databases';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS || 10));
const POLL_MS = 2;

const ENGINES: Array<{ engine: DatabaseEngine; collection: string; body: Record<string, unknown>; targetMs: number }> = [
  { engine: 'postgres', collection: 'databases', body: { version: '16' }, targetMs: 1000 },
  { engine: 'redis', collection: 'cache', body: {}, targetMs: 300 },
  { engine: 'clickhouse', collection: 'analytics', body: {}, targetMs: 2000 },
];

const log = (msg: string) => process.stderr.write(`[bench:databases] ${msg}\n`);

function stats(samples: number[]): { median_ms: number; p95_ms: number; min_ms: number; max_ms: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  const round = (n: number) => Math.round(n * 10) / 10;
  return { median_ms: round(at(0.5)), p95_ms: round(at(0.95)), min_ms: round(s[0]), max_ms: round(s[s.length - 1]) };
}

/** POST, then poll GET as fast as a client may until ready; returns milliseconds. */
async function throughApi(api: HttpClient, collection: string, body: Record<string, unknown>, name: string): Promise<number> {
  const started = performance.now();
  const created = await api.post(`/v1/${collection}`, { ...DB_PLACEMENT, ...body, name });
  if (created.status !== 202) throw new Error(`create ${collection}: ${created.status} ${created.text}`);
  for (;;) {
    const res = await api.get(`/v1/${collection}/${created.body.id}`);
    if (res.body.status === 'ready') break;
    if (res.body.status === 'error') throw new Error(`${collection}/${created.body.id}: ${res.body.status_reason}`);
    await sleep(POLL_MS);
  }
  const elapsed = performance.now() - started;
  await api.delete(`/v1/${collection}/${created.body.id}`);
  for (;;) {
    if ((await api.get(`/v1/${collection}/${created.body.id}`)).status === 404) break;
    await sleep(20);
  }
  return elapsed;
}

/** The same server, started by the driver alone: no API, no database row, no queue, no worker. */
async function direct(driver: DatabaseDriver, engine: DatabaseEngine, i: number, address: string): Promise<number> {
  const password = generateDatabasePassword();
  const key = `${engine}-bench${i}`;
  const started = performance.now();
  await driver.ensureRunning({
    key,
    engine,
    version: engine === 'postgres' ? '16' : engine === 'redis' ? '7' : null,
    address,
    port: ENGINE_PORTS[engine],
    dbName: engine === 'postgres' ? 'app' : engine === 'clickhouse' ? 'analytics' : null,
    dbUser: engine === 'redis' ? null : 'appuser',
    passwordVerifier: engine === 'postgres' ? await scramSha256Verifier(password) : sha256Hex(password),
    superuser: false,
    extensions: [],
    ha: false,
  });
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
  const api = stack.http.with({ 'x-api-key': tenant.apiKey });
  const config = testConfig();
  // The bench's direct servers use the top of the pool, far from what the API leases.
  const driver = createLocalDatabaseDriver(config);
  const base = config.LOCAL_ADDRESS_POOL.split('.').slice(0, 2).join('.');
  const results: Record<string, unknown> = {};
  try {
    for (const { engine, collection, body, targetMs } of ENGINES) {
      log(`${engine}: warm-up (template, caches)`);
      await throughApi(api, collection, body, `warm-${collection}`);
      await direct(driver, engine, 0, `${base}.250.1`);
      const viaApi: number[] = [];
      const raw: number[] = [];
      // Alternate, so load from elsewhere on a shared machine falls on both.
      for (let i = 0; i < RUNS; i++) {
        viaApi.push(await throughApi(api, collection, body, `bench-${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`));
        raw.push(await direct(driver, engine, i + 1, `${base}.250.${(i % 200) + 2}`));
        log(`${engine} run ${i + 1}/${RUNS}: api ${viaApi[i].toFixed(0)} ms, direct ${raw[i].toFixed(0)} ms`);
      }
      const a = stats(viaApi);
      const r = stats(raw);
      results[engine] = {
        post_to_ready: a,
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
