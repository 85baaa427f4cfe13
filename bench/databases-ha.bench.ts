/**
 * databases-ha: for BENCH_RUNS (5) high-availability PostgreSQL 15
 * databases, one at a time, against the compiled api, worker and edge of a
 * test slot:
 *
 *   ready        POST /v1/databases (ha: true) to `ready`, as a client
 *                polling GET every 50 ms sees it;
 *   failover     the primary's Patroni and postmaster SIGKILLed under a
 *                client inserting one row per commit through the address,
 *                to that client's first acknowledged commit after the kill;
 *   throughput   commits a second through the address, WRITERS clients each
 *                inserting one row per commit for BENCH_SECONDS, against a
 *                single (non-ha) PostgreSQL 15 server of the same run,
 *                measured alternately.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 5), which it resets
 * first. Prints one JSON object; progress to stderr. See bench/README.md.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '5';

import { DATABASE_MARKER, postmasterPid, readStat } from '@stratus/providers';
import { createManaged, createTenant, HttpClient, markedLeadersUnder, resetTestInstallation, TestStack, testDataSource, waitFor, waitForDatabase } from '@stratus/testing';
import { join, sep } from 'node:path';
import { Client } from 'pg';
import { latencySummary as summary } from './percentiles';

const RUNS = Number(process.env.BENCH_RUNS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WRITERS = 4;

const log = (m: string) => process.stderr.write(`[bench:databases-ha] ${m}\n`);

interface Db {
  id: number;
  address: string;
  user: string;
  name: string;
  password: string;
}

async function connect(db: Db): Promise<Client> {
  const client = new Client({ host: db.address, port: 5432, user: db.user, password: db.password, database: db.name, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function create(api: HttpClient, body: Record<string, unknown>, timeoutMs: number): Promise<{ db: Db; ms: number }> {
  const t = performance.now();
  const res = await createManaged(api, 'databases', { version: '15', ...body });
  const ready = await waitForDatabase(api, 'databases', res.body.id, ['ready', 'error'], { timeoutMs, intervalMs: 50 });
  if (ready.status !== 'ready') throw new Error(`database ${res.body.id}: ${ready.status_reason}`);
  const ms = performance.now() - t;
  const db = { id: ready.id, address: ready.floating_ip, user: ready.db_user, name: ready.db_name, password: res.body.db_password };
  const client = await connect(db);
  await client.query('CREATE TABLE IF NOT EXISTS ledger (n bigserial PRIMARY KEY, at timestamptz DEFAULT now())');
  await client.end();
  return { db, ms };
}

/** Commits a second: WRITERS clients inserting one row per commit for SECONDS. */
async function throughput(db: Db): Promise<number> {
  const clients = await Promise.all(Array.from({ length: WRITERS }, () => connect(db)));
  const end = performance.now() + SECONDS * 1000;
  let commits = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        await c.query('INSERT INTO ledger DEFAULT VALUES');
        commits++;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.end()));
  return commits / SECONDS;
}

/** Kills the primary's processes under a writing client; milliseconds from the kill to its first acknowledged commit. */
async function failover(api: HttpClient, dataDir: string, db: Db, memberAddresses: string[]): Promise<number> {
  const body = (await api.get(`/v1/databases/${db.id}`)).body;
  const primary = memberAddresses.indexOf(body.members.find((m: any) => m.role === 'primary').address);
  let killedAt = 0;
  let firstAfter = 0;
  let stop = false;
  const writer = (async () => {
    let client: Client | null = null;
    while (!stop) {
      try {
        client ??= await connect(db);
        const sent = performance.now();
        await client.query('INSERT INTO ledger DEFAULT VALUES');
        // A commit sent before the kill may be acknowledged just after it: only one sent after counts.
        if (killedAt && sent > killedAt && !firstAfter) firstAfter = performance.now();
      } catch {
        await client?.end().catch(() => undefined);
        client = null;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await client?.end().catch(() => undefined);
  })();
  await new Promise((r) => setTimeout(r, 1_000));
  const memberDir = join(dataDir, 'databases', `postgres-${db.id}`, `member-${primary}`);
  const patroni = markedLeadersUnder(DATABASE_MARKER, dataDir, join(dataDir, 'databases') + sep).get(`postgres-${db.id}.member-${primary}`) ?? [];
  const postmaster = postmasterPid(join(memberDir, 'data'));
  const groups = [...patroni, ...(postmaster === null ? [] : [postmaster])].map((pid) => readStat(pid)!.pgrp);
  killedAt = performance.now();
  for (const group of groups) process.kill(-group, 'SIGKILL');
  await waitFor('a write after the kill', () => firstAfter > 0, { timeoutMs: 120_000, intervalMs: 10 });
  stop = true;
  await writer;
  return firstAfter - killedAt;
}

async function main(): Promise<void> {
  log(`resetting test slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({}, ['api', 'worker', 'edge']);
  const data = await testDataSource();
  try {
    const tenant = await createTenant(data);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const { db: single } = await create(api, { name: 'bench-single' }, 120_000);
    const ready: number[] = [];
    const failovers: number[] = [];
    const haRate: number[] = [];
    const singleRate: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { db, ms } = await create(api, { name: `bench-ha-${String.fromCharCode(97 + (run % 26))}`, ha: true }, 300_000);
      ready.push(ms);
      const [row] = await data.query('SELECT member_addresses FROM managed_databases WHERE id = $1', [db.id]);
      singleRate.push(await throughput(single));
      haRate.push(await throughput(db));
      failovers.push(await failover(api, stack.env.DATA_DIR, db, row.member_addresses));
      log(`run ${run + 1}: ready ${Math.round(ms)} ms, failover ${Math.round(failovers[run])} ms, ${Math.round(haRate[run])} vs ${Math.round(singleRate[run])} commits/s`);
      await api.delete(`/v1/databases/${db.id}`);
      await waitFor('the database to be deleted', async () => (await api.get(`/v1/databases/${db.id}`)).status === 404, { timeoutMs: 120_000 });
    }
    await api.delete(`/v1/databases/${single.id}`);
    await waitFor('the single server to be deleted', async () => (await api.get(`/v1/databases/${single.id}`)).status === 404, { timeoutMs: 120_000 });
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const result = {
      runs: RUNS,
      members: 3,
      ready: summary(ready),
      failover: summary(failovers),
      throughput: {
        writers: WRITERS,
        seconds: SECONDS,
        ha_commits_per_s: Math.round(median(haRate)),
        single_commits_per_s: Math.round(median(singleRate)),
        ha_over_single: Number((median(haRate) / median(singleRate)).toFixed(2)),
      },
    };
    log(JSON.stringify(result));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stack.stop();
    await data.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
