/**
 * analytics-ha: for an analytics database with ha (three ClickHouse
 * replicas, ZooKeeper, the edge's listener), in one run: time from POST to
 * `ready`, against a single server's in the same run (ratio); time from a
 * member's SIGKILL to the database healthy again (the member started by
 * the reconciler, answering, and get no longer degraded); and the memory
 * the parts hold once ready (resident, MB). Median and p95 of BENCH_RUNS
 * (default 5). One JSON object goes to stdout; progress to stderr. See
 * bench/README.md.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 4), which it resets first.
 */
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '4';

import { DATABASE_MARKER } from '@stratus/providers';
import { createTenant, DB_PLACEMENT, markedLeadersUnder, resetTestInstallation, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { nearestRank } from './percentiles';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS || 5));

const log = (msg: string) => process.stderr.write(`[bench:analytics-ha] ${msg}\n`);

function stats(samples: number[]): { median_ms: number; p95_ms: number; min_ms: number; max_ms: number } {
  return {
    median_ms: Math.round(nearestRank(samples, 0.5)),
    p95_ms: Math.round(nearestRank(samples, 0.95)),
    min_ms: Math.round(Math.min(...samples)),
    max_ms: Math.round(Math.max(...samples)),
  };
}

/** Resident memory of a process, in MB. */
function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
  } catch {
    return true;
  }
}

async function main(): Promise<void> {
  log(`resetting slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({ LOG_LEVEL: 'warn' }, ['api', 'worker', 'edge']);
  const db = await testDataSource();
  const tenant = await createTenant(db);
  const api = stack.http.with({ 'x-api-key': tenant.apiKey });
  const config = testConfig();
  const servers = join(config.DATA_DIR, 'databases');
  const leaders = () => markedLeadersUnder(DATABASE_MARKER, config.DATA_DIR, servers + sep);

  /** POST, then GET every 50 ms until ready (and, with ha, every member up); milliseconds and the body. */
  async function toReady(body: Record<string, unknown>): Promise<{ ms: number; ready: any }> {
    const started = performance.now();
    const created = await api.post('/v1/analytics', JSON.stringify({ ...DB_PLACEMENT, ...body }));
    if (created.status !== 202) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    for (;;) {
      const res = await api.get(`/v1/analytics/${created.body.id}`);
      if (res.body.status === 'error') throw new Error(`analytics/${created.body.id}: ${res.body.status_reason}`);
      if (res.body.status === 'ready') return { ms: performance.now() - started, ready: res.body };
      await sleep(50);
    }
  }

  async function remove(id: number): Promise<void> {
    await api.delete(`/v1/analytics/${id}`);
    while ((await api.get(`/v1/analytics/${id}`)).status !== 404) await sleep(50);
  }

  const ha: number[] = [];
  const single: number[] = [];
  const healed: number[] = [];
  let memory: Record<string, number> = {};
  try {
    // Alternate, so load from elsewhere on a shared machine falls on both.
    for (let i = 0; i < RUNS; i++) {
      const one = await toReady({ name: `single-${'abcdefghij'[i % 10]}` });
      single.push(one.ms);
      await remove(one.ready.id);

      const run = await toReady({ name: `ha-${'abcdefghij'[i % 10]}`, ha: true });
      ha.push(run.ms);
      const key = `clickhouse-${run.ready.id}`;
      if (i === 0) {
        const parts = leaders();
        memory = Object.fromEntries(['zookeeper', 'member-0', 'member-1', 'member-2'].map((p) => [p, rssMb(parts.get(`${key}.${p}`)![0])]));
      }
      const victim = leaders().get(`${key}.member-1`)![0];
      const killed = performance.now();
      process.kill(victim, 'SIGKILL');
      while (!gone(victim)) await sleep(2);
      for (;;) {
        const body = (await api.get(`/v1/analytics/${run.ready.id}`)).body;
        const back = leaders().get(`${key}.member-1`)?.[0];
        if (back !== undefined && back !== victim && body.degraded === false && body.members.every((m: any) => m.health === 'up')) break;
        await sleep(50);
      }
      healed.push(performance.now() - killed);
      log(`run ${i + 1}/${RUNS}: single ${single[i].toFixed(0)} ms, ha ${ha[i].toFixed(0)} ms, member back ${healed[i].toFixed(0)} ms`);
      await remove(run.ready.id);
    }
  } finally {
    await stack.stop();
    await db.destroy();
  }
  const h = stats(ha);
  const s = stats(single);
  process.stdout.write(
    JSON.stringify(
      {
        bench: 'analytics-ha',
        runs: RUNS,
        post_to_ready_ha: h,
        post_to_ready_single: s,
        ratio_median: Math.round((h.median_ms / s.median_ms) * 100) / 100,
        kill_to_healthy: stats(healed),
        resident_mb: { ...memory, total: Object.values(memory).reduce((a, b) => a + b, 0) },
      },
      null,
      2,
    ) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
