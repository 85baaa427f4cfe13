/**
 * api-scaleout: requests/second of the api run as one process against the
 * api run as two (API_PROCESSES=2: one port, node:cluster), in the same run
 * on the same database, for
 *
 *   flavors_read     GET /v1/flavors    (API-key check + keyset page)
 *   instance_create  POST /v1/instances (API-key check + catalog lookups +
 *                                        create transaction + enqueue)
 *
 * with the CPU each party used meanwhile (the load generator, which is this
 * process, the api processes, the slot's PostgreSQL backends, and the whole
 * machine), since all of them share the same cores. One JSON object goes to
 * stdout; progress goes to stderr. See bench/README.md.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. No worker runs: creates stay rows and queued jobs, removed after
 * each slice.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { JOB_QUEUE, redisConnection } from '@stratus/queue';
import { childPids, cpuTimeUs, createTenant, DEMO_INSTANCE, resetTestInstallation, Tenant, TestStack, testConfig, testDataSource } from '@stratus/testing';
import { Queue } from 'bullmq';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { DataSource } from 'typeorm';
import { machineCpu } from './machine-cpu';
import { round } from './percentiles';

// autocannon ships no types; only what is used here.
interface RawResult {
  latency: { p50: number; p99: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  totalCompletedRequests: number;
}
interface AutocannonInstance extends Promise<RawResult> {
  stop(): void;
}
type Autocannon = ((opts: Record<string, unknown>) => AutocannonInstance) & {
  aggregateResult(results: RawResult[], opts: Record<string, unknown>): RawResult;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const DURATION_S = Number(process.env.BENCH_DURATION_S || 12);
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES || 6));
const WARMUP_S = Number(process.env.BENCH_WARMUP_S || 2);
/** The goal: two api processes serve at least this many times what one does. */
const TARGET = 1.6;
/**
 * Every api process of both gets the same share of connections to
 * PostgreSQL (the one process 20, each of the two 10), so the two do not win
 * by holding more of them.
 */
const POOL_TOTAL = 20;

type CaseName = 'flavors_read' | 'instance_create';
const CASES = (['flavors_read', 'instance_create'] as CaseName[]).filter((c) => !process.env.BENCH_CASES || process.env.BENCH_CASES.split(',').includes(c));
type Target = 'one' | 'two';

/** CPU seconds used over a slice, by party; `machine_busy` is every core's non-idle time. */
interface CpuShare {
  load_generator: number;
  api: number;
  postgres: number;
  machine_busy: number;
  machine_total: number;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
let current: AutocannonInstance | undefined;
let interrupted = false;

/** The PostgreSQL backends serving `database` (their title names it: `postgres: [<cluster>: ]<user> <database> <client>`). */
function postgresBackends(database: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return new RegExp(`^postgres: (?:[^:]+: )?\\S+ ${database} `).test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
}

const seconds = (us: { user: number; system: number }) => (us.user + us.system) / 1e6;

async function load(url: string, tenant: Tenant, name: CaseName, durationS: number): Promise<RawResult> {
  const headers: Record<string, string> = { 'x-api-key': tenant.apiKey };
  const request =
    name === 'flavors_read'
      ? { url: `${url}/v1/flavors`, method: 'GET' }
      : { url: `${url}/v1/instances`, method: 'POST', body: JSON.stringify({ name: 'bench', ...DEMO_INSTANCE }) };
  if (request.method === 'POST') headers['content-type'] = 'application/json';
  current = autocannon({ ...request, headers, connections: CONNECTIONS, duration: durationS, timeout: 10, skipAggregateResult: true });
  let result: RawResult | undefined;
  try {
    result = await current;
  } catch (err) {
    if (!interrupted) throw err;
  } finally {
    current = undefined;
  }
  if (interrupted || !result) throw new Error('interrupted');
  return result;
}

/** One slice of load on `target`, with the CPU each party used meanwhile. */
async function measuredSlice(url: string, apiPids: number[], database: string, tenant: Tenant, name: CaseName, durationS: number): Promise<{ result: RawResult; cpu: CpuShare }> {
  // Backends come and go with the pools; those alive before and after are summed (pools keep theirs open).
  const backends = postgresBackends(database);
  const before = { self: process.cpuUsage(), api: seconds(cpuTimeUs(apiPids)), pg: seconds(cpuTimeUs(backends)), machine: machineCpu() };
  const result = await load(url, tenant, name, durationS);
  const self = process.cpuUsage(before.self);
  const machine = machineCpu();
  return {
    result,
    cpu: {
      load_generator: (self.user + self.system) / 1e6,
      api: seconds(cpuTimeUs(apiPids)) - before.api,
      postgres: seconds(cpuTimeUs(backends)) - before.pg,
      machine_busy: machine.busy - before.machine.busy,
      machine_total: machine.total - before.machine.total,
    },
  };
}

/** Removes the tenant's instances and what names them, and the queued jobs, so each slice starts alike. */
async function removeCreated(db: DataSource, queue: Queue, tenant: Tenant): Promise<void> {
  const tables: string[] = (await db.query(`SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'instance_id' ORDER BY 1`)).map(
    (r: { table_name: string }) => r.table_name,
  );
  await db.transaction(async (m) => {
    const ids = (await m.query('SELECT id::text AS id FROM instances WHERE project_id = $1', [tenant.projectId])).map((r: { id: string }) => r.id);
    if (ids.length === 0) return;
    for (const table of tables) await m.query(`DELETE FROM "${table}" WHERE instance_id::text = ANY($1)`, [ids]);
    await m.query(`DELETE FROM address_leases WHERE resource_id = ANY($1)`, [ids]);
    await m.query(`DELETE FROM outbox WHERE payload->>'instanceId' = ANY($1)`, [ids]);
    await m.query('DELETE FROM instances WHERE id::text = ANY($1)', [ids]);
  });
  await db.query(`VACUUM ANALYZE instances, address_leases, outbox${tables.map((t) => `, "${t}"`).join('')}`);
  await queue.obliterate({ force: true });
}

function summarize(url: string, slices: Array<{ result: RawResult; cpu: CpuShare }>) {
  const merged = autocannon.aggregateResult(
    slices.map((s) => s.result),
    { url, connections: CONNECTIONS },
  );
  const requests = slices.reduce((n, s) => n + s.result.totalCompletedRequests, 0);
  const time = slices.reduce((n, s) => n + s.result.duration, 0);
  const sum = (key: keyof CpuShare) => slices.reduce((n, s) => n + s.cpu[key], 0);
  const machineTotal = sum('machine_total');
  return {
    rps: round(requests / time, 1),
    p50_ms: merged.latency.p50,
    p99_ms: merged.latency.p99,
    requests,
    non_2xx: merged.non2xx,
    errors: merged.errors + merged.timeouts,
    // Cores busy on average over the slices, by party: the machine has cpus() of them.
    cores: {
      load_generator: round(sum('load_generator') / time),
      api: round(sum('api') / time),
      postgres: round(sum('postgres') / time),
      machine_busy: round((sum('machine_busy') / machineTotal) * cpus().length),
      // Everything else that ran meanwhile: other work on a shared machine, PostgreSQL's own background processes.
      others: round((sum('machine_busy') / machineTotal) * cpus().length - (sum('load_generator') + sum('api') + sum('postgres')) / time),
    },
    // CPU spent per request by the api processes, in ms: the cost scale-out has to spread.
    api_cpu_ms_per_request: round((sum('api') / requests) * 1000, 3),
    // ...and by everything the request needs on this machine (load generator, api, PostgreSQL backends).
    total_cpu_ms_per_request: round(((sum('load_generator') + sum('api') + sum('postgres')) / requests) * 1000, 3),
  };
}

/**
 * The most requests/second `processes` api processes could serve here if
 * nothing else ran, from the CPU each request was measured to cost: each
 * process uses one core at most, and the load generator and PostgreSQL
 * need their share of the same cores. The ratio of these two is what the
 * machine allows scale-out to reach, whatever the api does.
 */
function ceilingRps(m: ReturnType<typeof summarize>, processes: number): number {
  return round(Math.min(processes / (m.api_cpu_ms_per_request / 1000), cpus().length / (m.total_cpu_ms_per_request / 1000)), 0);
}

async function main(): Promise<number> {
  const started = Date.now();
  const config = testConfig();
  const database = config.DATABASE_URL.replace(/^.*\//, '');
  log(`slot ${process.env.STRATUS_TEST_SLOT}: resetting ${database}, queues ${config.QUEUE_PREFIX}`);
  await resetTestInstallation();
  const stacks: Partial<Record<Target, TestStack>> = {};
  let db: DataSource | undefined;
  let tenant: Tenant | undefined;
  const queue = new Queue(JOB_QUEUE['instance.create'], { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
  process.once('SIGINT', () => {
    interrupted = true;
    current?.stop();
  });
  try {
    log('starting the api as one process and as two (no worker)');
    stacks.one = await TestStack.start({ API_PROCESSES: '1', DATABASE_POOL_MAX: String(POOL_TOTAL), DATABASE_POOL_MIN: '4' }, ['api']);
    stacks.two = await TestStack.start({ API_PROCESSES: '2', DATABASE_POOL_MAX: String(POOL_TOTAL / 2), DATABASE_POOL_MIN: '2' }, ['api']);
    const pids: Record<Target, number[]> = {
      one: [stacks.one.process('api')!.pid!],
      // The primary only hands connections out; it is counted with its processes all the same.
      two: [stacks.two.process('api')!.pid!, ...childPids(stacks.two.process('api')!.pid!, 'main.js')],
    };
    if (pids.two.length !== 3) throw new Error(`the two-process api runs ${pids.two.length - 1} serving processes`);
    const urls: Record<Target, string> = { one: stacks.one.http.baseUrl, two: stacks.two.http.baseUrl };
    db = await testDataSource();
    tenant = await createTenant(db, `bench-${Date.now()}`);

    const results = {} as Partial<Record<CaseName, Record<Target, ReturnType<typeof summarize>>>>;
    for (const name of CASES) {
      const creates = name === 'instance_create';
      for (const target of ['one', 'two'] as Target[]) {
        log(`${name} / ${target}: warm-up ${WARMUP_S}s`);
        await load(urls[target], tenant, name, WARMUP_S);
        if (creates) await removeCreated(db, queue, tenant);
      }
      log(`${name}: ${DURATION_S}s per api in ${SLICES} alternating slices, ${CONNECTIONS} connections`);
      const slices: Record<Target, Array<{ result: RawResult; cpu: CpuShare }>> = { one: [], two: [] };
      for (let i = 0; i < SLICES; i++) {
        for (const target of (i % 2 ? ['two', 'one'] : ['one', 'two']) as Target[]) {
          slices[target].push(await measuredSlice(urls[target], pids[target], database, tenant, name, DURATION_S / SLICES));
          if (creates) await removeCreated(db, queue, tenant);
        }
      }
      results[name] = { one: summarize(urls.one, slices.one), two: summarize(urls.two, slices.two) };
      for (const target of ['one', 'two'] as Target[]) log(`${name} / ${target}: ${JSON.stringify(results[name][target])}`);
    }
    const ratios = Object.fromEntries(CASES.map((name) => [name, round(results[name]!.two.rps / results[name]!.one.rps)]));
    const ceilings = Object.fromEntries(
      CASES.map((name) => {
        const one = ceilingRps(results[name]!.one, 1);
        const two = ceilingRps(results[name]!.two, 2);
        return [name, { one_rps: one, two_rps: two, ratio: round(two / one) }];
      }),
    );
    const failed = Object.values(results).some((byTarget) => Object.values(byTarget).some((m) => m.non_2xx > 0 || m.errors > 0));
    process.stdout.write(
      JSON.stringify({
        bench: 'api-scaleout',
        valid: !failed,
        results,
        ratios,
        ceilings,
        target: { min_ratio: TARGET, met: Object.fromEntries(CASES.map((name) => [name, ratios[name] >= TARGET])) },
        config: {
          connections: CONNECTIONS,
          duration_s: DURATION_S,
          slices: SLICES,
          warmup_s: WARMUP_S,
          pool_total: POOL_TOTAL,
          slot: Number(process.env.STRATUS_TEST_SLOT),
          cpus: cpus().length,
          load_average_1m_at_end: round(loadavg()[0]),
          node: process.version,
          elapsed_s: round((Date.now() - started) / 1000, 1),
        },
      }) + '\n',
    );
    if (failed) log('some requests failed (non_2xx or errors above): the numbers are not comparable');
    return failed ? 1 : 0;
  } finally {
    log('cleaning up');
    await Promise.all(Object.values(stacks).map((s) => s.stop()));
    if (db && tenant) {
      await removeCreated(db, queue, tenant).catch((err) => log(`cleanup of created rows failed: ${err}`));
      await db.query('DELETE FROM api_keys WHERE project_id = $1', [tenant.projectId]).catch(() => undefined);
      await db.query('DELETE FROM projects WHERE id = $1', [tenant.projectId]).catch(() => undefined);
    }
    await queue.close();
    await db?.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`failed: ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
