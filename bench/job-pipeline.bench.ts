/**
 * job-pipeline: our job pipeline against raw BullMQ on the same Redis, in
 * the same run.
 *
 *   ours  a create's transaction (an instance row in BUILD and its outbox
 *         row), the outbox's direct dispatch after commit (OutboxService),
 *         the instances queue with the project's job options, a worker with
 *         the instance worker's options and concurrency, the processor's
 *         wrappers (delayWhileNotReady, runHandler) and job metrics, and a
 *         handler that reloads the row, runs a no-op provider step and moves
 *         it BUILD -> ACTIVE with compareAndSet.
 *   raw   `queue.add` of the same payload and a BullMQ Worker of the same
 *         concurrency whose processor returns at once.
 *   ceiling  raw plus the two durable writes no pipeline that keeps its
 *         resources in PostgreSQL can skip, each as one statement: the create
 *         (row and outbox entry) committed before the add, the move to ACTIVE
 *         in the processor. What such a pipeline can reach at most in one
 *         process, short of batching the commits of several creates.
 *   batched  the ceiling with the commits of one event-loop turn gathered:
 *         the creates a turn brings as one multi-row statement and one
 *         addBulk, the moves to ACTIVE of the jobs a turn finishes as one
 *         UPDATE. What a pipeline that commits across requests could reach;
 *         no path of ours is built that way.
 *   postgres_alone  the ceiling's two statements and nothing else, each its
 *         own commit, from pgbench (C, BENCH_PRODUCERS clients) for
 *         BENCH_PGBENCH_S (10) seconds: no queue, no Node. What PostgreSQL
 *         alone commits on this machine. Skipped, with the reason, where
 *         pgbench is not found.
 *
 * Over every slice it reads the machine's busy CPU time (/proc/stat), so
 * each side's CPU a job. A pipeline that commits each create and its move
 * to ACTIVE costs at least raw's plus postgres_alone's: the most it could
 * reach on the machine's cores is commit_each_bound.
 *
 * Throughput: BENCH_JOBS (2000) jobs a side, from BENCH_PRODUCERS (16)
 * concurrent producers, in alternating slices (raw, ours, ceiling, batched,
 * postgres_alone, batched, ceiling, ours, raw), from the first enqueue to
 * the last completion. Pickup latency: BENCH_PACED (200) jobs a side one
 * at a time, from BullMQ's enqueue timestamp to a worker taking the job
 * (its processedOn); for ours also from before the create's transaction to
 * ACTIVE committed.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. Prints one JSON object; progress to stderr. See bench/README.md.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { ModuleRef } from '@nestjs/core';
import { compareAndSet, hotFindOne, hotQuery, Instance, INSTANCE_CAS, POSTGRES_VERSIONS } from '@stratus/core';
import { findPostgresDistributions } from '@stratus/providers';
import { DEFAULT_JOB_OPTIONS, OutboxService, QUEUES, redisConnection, resourceJob } from '@stratus/queue';
import { createTenant, resetTestInstallation, Tenant, testConfig, testDataSource } from '@stratus/testing';
import { Queue, Worker } from 'bullmq';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { JobHandlers, runHandler } from '../apps/worker/src/jobs/job-handlers';
import { delayWhileNotReady } from '../apps/worker/src/jobs/not-ready';
import { INSTANCE_WORKER_OPTIONS } from '../apps/worker/src/jobs/worker-options';
import { measureJobs } from '../apps/worker/src/metrics/job.metrics';
import { machineCpu } from './machine-cpu';
import { latencySummary, round } from './percentiles';

const JOBS = Number(process.env.BENCH_JOBS || 2000);
const PRODUCERS = Number(process.env.BENCH_PRODUCERS || 16);
const PACED = Number(process.env.BENCH_PACED || 200);
const WARMUP = Number(process.env.BENCH_WARMUP || 200);
const PGBENCH_S = Number(process.env.BENCH_PGBENCH_S || 10);
/** The worker's WORKER_CONCURRENCY default: both sides run this many jobs at once. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 32);
const RAW_QUEUE = 'bench-raw';
const CEILING_QUEUE = 'bench-ceiling';
const BATCHED_QUEUE = 'bench-batched';
/** An instance row as a create leaves it (no address yet), for the no-op provider step to move to ACTIVE. */
const INSERT_INSTANCE = `INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, status)
  VALUES ($1, $2, $3, 'plain', 'm1.small', 'private', 'default', '{}', 'BUILD') RETURNING id`;
/** The same row and its outbox entry as one statement: the least a create can commit. */
const INSERT_INSTANCE_AND_ENTRY = `WITH i AS (${INSERT_INSTANCE})
  INSERT INTO outbox (job_name, job_id, payload) SELECT 'instance.create', 'ceiling-' || id, jsonb_build_object('instanceId', id, 'generation', 1) FROM i
  RETURNING payload->>'instanceId' AS id`;
const MOVE_TO_ACTIVE = `UPDATE instances SET status = 'ACTIVE', updated_at = now() WHERE id = $1 AND status = 'BUILD' AND generation = 1`;
/** The ceiling's create for several at once: a row and an entry for each name. */
const INSERT_INSTANCES_AND_ENTRIES = `WITH i AS (
    INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, status)
    SELECT $1, $2, name, 'plain', 'm1.small', 'private', 'default', '{}', 'BUILD' FROM unnest($3::text[]) AS name RETURNING id, name)
  INSERT INTO outbox (job_name, job_id, payload) SELECT 'instance.create', 'batched-' || id, jsonb_build_object('instanceId', id, 'generation', 1) FROM i
  RETURNING payload->>'instanceId' AS id, (SELECT name FROM i WHERE i.id::text = payload->>'instanceId') AS name`;
const MOVE_ALL_TO_ACTIVE = `UPDATE instances SET status = 'ACTIVE', updated_at = now() WHERE id = ANY($1::uuid[]) AND status = 'BUILD' AND generation = 1`;

const log = (m: string) => process.stderr.write(`[bench:job-pipeline] ${m}\n`);

/** Completions of `worker`: a count to wait for, and when each job completed. */
function completions(worker: Worker): { next(count: number): Promise<void>; finished(id: string): Promise<number>; clear(): void } {
  let waiting: { left: number; resolve: () => void } | null = null;
  const finishedAt = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  worker.on('completed', (job) => {
    const at = Date.now();
    finishedAt.set(job.id!, at);
    waiters.get(job.id!)?.(at);
    waiters.delete(job.id!);
    if (waiting && --waiting.left === 0) {
      waiting.resolve();
      waiting = null;
    }
  });
  worker.on('failed', (job, err) => log(`job ${job?.id} failed: ${err.message}`));
  return {
    next: (count) => new Promise<void>((resolve) => (waiting = { left: count, resolve })),
    finished: (id) => (finishedAt.has(id) ? Promise.resolve(finishedAt.get(id)!) : new Promise<number>((resolve) => waiters.set(id, resolve))),
    clear: () => finishedAt.clear(),
  };
}

interface Side {
  name: 'raw' | 'ours' | 'ceiling' | 'batched';
  worker: Worker;
  done: ReturnType<typeof completions>;
  /** Enqueues job `n` (ours: commits its create first); resolves with its job id once enqueued. */
  produce(n: number): Promise<string>;
  /** Time to the first pickup of each job, from the 'active' event. */
  pickups: Map<string, number>;
}

async function main(): Promise<void> {
  log(`resetting test slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const config = testConfig();
  const connection = redisConnection(config.REDIS_URL);
  const prefix = config.QUEUE_PREFIX;
  const db = await testDataSource();
  const tenant = await createTenant(db);

  const ourQueue = new Queue(QUEUES.instances, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
  const rawQueue = new Queue(RAW_QUEUE, { connection, prefix });
  const ceilingQueue = new Queue(CEILING_QUEUE, { connection, prefix });
  const batchedQueue = new Queue(BATCHED_QUEUE, { connection, prefix });
  const outbox = new OutboxService(db, { get: () => ourQueue } as unknown as ModuleRef);
  const sides = [
    ourSide(db, tenant, outbox, connection, prefix),
    rawSide(rawQueue, connection, prefix),
    ceilingSide(db, tenant, ceilingQueue, connection, prefix),
    batchedSide(db, tenant, batchedQueue, connection, prefix),
  ];
  const [ours, raw, ceiling, batched] = sides;
  try {
    await Promise.all(sides.map((s) => s.worker.waitUntilReady()));
    log(`warm-up: ${WARMUP} jobs a side`);
    for (const side of sides) await burst(side, WARMUP);

    log(`throughput: ${JOBS} jobs a side, ${PRODUCERS} producers, slices raw, ours, ceiling, batched, postgres_alone, batched, ceiling, ours, raw`);
    const time = { raw: 0, ours: 0, ceiling: 0, batched: 0 };
    /** Seconds of the machine's CPU (every core, every process) each side used. */
    const busy = { raw: 0, ours: 0, ceiling: 0, batched: 0, postgres_alone: 0 };
    let postgresAlone: PgbenchRun | { skipped: string } = { skipped: 'not run' };
    for (const side of [raw, ours, ceiling, batched, 'postgres_alone' as const, batched, ceiling, ours, raw]) {
      const before = machineCpu().busy;
      if (side === 'postgres_alone') postgresAlone = await pgbenchCommits(config.DATABASE_URL, tenant);
      else time[side.name] += await burst(side, JOBS / 2);
      busy[side === 'postgres_alone' ? side : side.name] += machineCpu().busy - before;
    }
    const pgRun = 'jobs' in postgresAlone ? postgresAlone : null;
    const rps = {
      raw: round(JOBS / (time.raw / 1000)),
      ours: round(JOBS / (time.ours / 1000)),
      ceiling: round(JOBS / (time.ceiling / 1000)),
      batched: round(JOBS / (time.batched / 1000)),
      postgres_alone: pgRun && round(pgRun.jobs / pgRun.seconds),
    };
    const cpuMsPerJob = {
      raw: round((busy.raw * 1000) / JOBS, 3),
      ours: round((busy.ours * 1000) / JOBS, 3),
      ceiling: round((busy.ceiling * 1000) / JOBS, 3),
      batched: round((busy.batched * 1000) / JOBS, 3),
      postgres_alone: pgRun && round((busy.postgres_alone * 1000) / pgRun.jobs, 3),
    };
    // A job that is enqueued and processed and whose create and move to ACTIVE are each committed
    // costs the machine at least raw's CPU plus PostgreSQL's for the two commits (and a client
    // that sends them costs no less than pgbench): all the cores, spent on nothing else, make this many.
    const commitEachBound = cpuMsPerJob.postgres_alone === null ? null : round((cpus().length * 1000) / (cpuMsPerJob.raw + cpuMsPerJob.postgres_alone));

    log(`pickup latency: ${PACED} jobs a side, one at a time`);
    const paced = { raw: await pace(raw), ours: await pace(ours) };
    const result = {
      jobs: JOBS,
      producers: PRODUCERS,
      concurrency: CONCURRENCY,
      throughput_jobs_per_s: rps,
      ratio: round(rps.ours / rps.raw),
      ceiling_ratio: round(rps.ceiling / rps.raw),
      ratio_to_ceiling: round(rps.ours / rps.ceiling),
      batched_ratio: round(rps.batched / rps.raw),
      postgres_alone_ratio: rps.postgres_alone === null ? null : round(rps.postgres_alone / rps.raw),
      ...('skipped' in postgresAlone ? { postgres_alone_skipped: postgresAlone.skipped } : {}),
      cpu_ms_per_job: cpuMsPerJob,
      cores: cpus().length,
      commit_each_bound: commitEachBound === null ? null : { jobs_per_s: commitEachBound, ratio: round(commitEachBound / rps.raw) },
      pickup: { raw: latencySummary(paced.raw.pickup), ours: latencySummary(paced.ours.pickup) },
      create_to_active: latencySummary(paced.ours.endToEnd),
      enqueue_to_completed_raw: latencySummary(paced.raw.endToEnd),
      target: { ratio_min: 0.6, pickup_p50_max_ms: 10 },
      met: rps.ours / rps.raw >= 0.6 && latencySummary(paced.ours.pickup).p50_ms < 10,
    };
    log(JSON.stringify(result));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await Promise.all(sides.map((s) => s.worker.close()));
    for (const queue of [ourQueue, rawQueue, ceilingQueue, batchedQueue]) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await db.query(`DELETE FROM outbox`);
    await db.query(`DELETE FROM instances WHERE project_id = $1`, [tenant.projectId]);
    await db.destroy();
  }

  /** `count` jobs from PRODUCERS concurrent producers; ms from the first enqueue to the last completion. */
  async function burst(side: Side, count: number): Promise<number> {
    const finished = side.done.next(count);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: PRODUCERS }, async () => {
        while (next < count) await side.produce(next++);
      }),
    );
    await finished;
    return performance.now() - started;
  }

  /** One job at a time: its pickup delay, and from before produce to its completion. */
  async function pace(side: Side): Promise<{ pickup: number[]; endToEnd: number[] }> {
    const pickup: number[] = [];
    const endToEnd: number[] = [];
    side.done.clear();
    side.pickups.clear();
    for (let i = 0; i < PACED; i++) {
      const started = Date.now();
      const id = await side.produce(i);
      endToEnd.push((await side.done.finished(id)) - started);
      pickup.push(side.pickups.get(id)!);
    }
    return { pickup, endToEnd };
  }
}

/**
 * Our side: what POST /v1/instances commits and dispatches, and what the
 * instances processor does with a provider that has nothing to do.
 */
function ourSide(db: DataSource, tenant: Tenant, outbox: OutboxService, connection: ReturnType<typeof redisConnection>, prefix: string): Side {
  const handlers: Pick<JobHandlers<typeof QUEUES.instances>, 'instance.create'> = {
    'instance.create': async ({ instanceId, generation }) => {
      const row = await hotFindOne(db, Instance, { id: instanceId });
      if (!row || row.status !== 'BUILD' || row.generation !== generation) return;
      // The provider step: nothing to make.
      await compareAndSet(db.manager, INSTANCE_CAS, instanceId, 'BUILD', 'ACTIVE', generation, { statusReason: null });
    },
  };
  const worker = new Worker(
    QUEUES.instances,
    (job, token) => delayWhileNotReady(job, token, { share: 0.25, minMs: 100, maxMs: 2_000 }, () => runHandler(handlers as JobHandlers<typeof QUEUES.instances>, job)),
    { ...INSTANCE_WORKER_OPTIONS, connection, prefix, concurrency: CONCURRENCY },
  );
  measureJobs(worker);
  // Resolves once the create is committed and its dispatch started, as a client's answer does; the enqueue runs after.
  return sideOf('ours', worker, async (n) => {
    const entry = await db.transaction(async (manager) => {
      const [{ id }] = await manager.query(INSERT_INSTANCE, [tenant.projectId, tenant.userId, `bench-${n}`]);
      return outbox.write(manager, resourceJob('instance.create', id, { instanceId: id, generation: 1 }));
    });
    outbox.dispatch([entry]);
    return entry.jobId;
  });
}

function rawSide(queue: Queue, connection: ReturnType<typeof redisConnection>, prefix: string): Side {
  const worker = new Worker(RAW_QUEUE, async () => undefined, { connection, prefix, concurrency: CONCURRENCY });
  return sideOf('raw', worker, async (n) => (await queue.add('instance.create', { instanceId: `raw-${n}`, generation: 1 })).id!);
}

/**
 * Raw BullMQ with the two durable writes of a persisted pipeline, each one
 * statement on the hot pool: the create committed before its add, the move
 * to ACTIVE before the job completes.
 */
function ceilingSide(db: DataSource, tenant: Tenant, queue: Queue, connection: ReturnType<typeof redisConnection>, prefix: string): Side {
  const worker = new Worker(CEILING_QUEUE, async (job) => hotQuery(db, MOVE_TO_ACTIVE, [job.data.instanceId]), { connection, prefix, concurrency: CONCURRENCY });
  return sideOf('ceiling', worker, async (n) => {
    const [{ id }] = await hotQuery<{ id: string }>(db, INSERT_INSTANCE_AND_ENTRY, [tenant.projectId, tenant.userId, `ceiling-${n}`]);
    return (await queue.add('instance.create', { instanceId: id, generation: 1 })).id!;
  });
}

/**
 * The ceiling with commits gathered across jobs (gatherTurn): one
 * statement for the creates of a turn, then one addBulk; one UPDATE for
 * the moves to ACTIVE of a turn, each job completing once it is committed.
 */
function batchedSide(db: DataSource, tenant: Tenant, queue: Queue, connection: ReturnType<typeof redisConnection>, prefix: string): Side {
  const create = gatherTurn<string, string>(async (names) => {
    const rows = await hotQuery<{ id: string; name: string }>(db, INSERT_INSTANCES_AND_ENTRIES, [tenant.projectId, tenant.userId, names]);
    const idOf = new Map(rows.map((r) => [r.name, r.id]));
    const jobs = await queue.addBulk(names.map((name) => ({ name: 'instance.create', data: { instanceId: idOf.get(name)!, generation: 1 } })));
    return jobs.map((job) => job.id!);
  });
  const activate = gatherTurn<string, void>(async (ids) => {
    await hotQuery(db, MOVE_ALL_TO_ACTIVE, [ids]);
    return ids.map(() => undefined);
  });
  const worker = new Worker(BATCHED_QUEUE, async (job) => activate(job.data.instanceId), { connection, prefix, concurrency: CONCURRENCY });
  return sideOf('batched', worker, (n) => create(`batched-${n}`));
}

/** Runs of pgbench's script (a job each), and the seconds pgbench ran. */
interface PgbenchRun {
  jobs: number;
  seconds: number;
}

/**
 * The ceiling's create and move to ACTIVE, each committed on its own, run
 * by pgbench from PRODUCERS connections for PGBENCH_S seconds. pgbench is
 * PostgreSQL's own, from a build of it the host has (the system's packages
 * ship it; the npm builds do not).
 */
async function pgbenchCommits(databaseUrl: string, tenant: Tenant): Promise<PgbenchRun | { skipped: string }> {
  const pgbench = POSTGRES_VERSIONS.flatMap((version) => findPostgresDistributions(version))
    .map((dist) => join(dist.bin, 'pgbench'))
    .find((path) => existsSync(path));
  if (!pgbench) return { skipped: 'no PostgreSQL build on this host has pgbench' };
  const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();
  const create = oneLine(INSERT_INSTANCE_AND_ENTRY.replace('$1', ':project').replace('$2', ':user').replace('$3', "'pgbench'"));
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  try {
    const script = join(dir, 'job.sql');
    // \gset keeps the row's id for the UPDATE; prepared statements, as the hot pool's are.
    writeFileSync(script, `${create} \\gset\n${oneLine(MOVE_TO_ACTIVE.replace('$1', ':id'))};\n`);
    const args = [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(PRODUCERS),
      '-j',
      String(cpus().length),
      '-T',
      String(PGBENCH_S),
      '-D',
      `project=${tenant.projectId}`,
      '-D',
      `user=${tenant.userId}`,
      '-f',
      script,
      databaseUrl,
    ];
    const started = performance.now();
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(pgbench, args, { timeout: (PGBENCH_S + 60) * 1000 }, (err, out, errOut) => (err ? reject(new Error(`pgbench: ${errOut || err.message}`)) : resolve(out))),
    );
    const jobs = /number of transactions actually processed: (\d+)/.exec(stdout)?.[1];
    if (!jobs) throw new Error(`pgbench printed no count: ${stdout}`);
    return { jobs: Number(jobs), seconds: (performance.now() - started) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Calls made in one turn of the event loop, run as one batch once the turn ends; each call resolves with its own result. */
function gatherTurn<A, R>(run: (batch: A[]) => Promise<R[]>): (arg: A) => Promise<R> {
  let pending: Array<{ arg: A; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  return (arg) =>
    new Promise<R>((resolve, reject) => {
      if (pending.length === 0) {
        setImmediate(() => {
          const batch = pending;
          pending = [];
          run(batch.map((p) => p.arg)).then(
            (results) => batch.forEach((p, i) => p.resolve(results[i])),
            (err) => batch.forEach((p) => p.reject(err)),
          );
        });
      }
      pending.push({ arg, resolve, reject });
    });
}

/** A side from its worker and producer: its completions and pickups are heard from the worker. */
function sideOf(name: Side['name'], worker: Worker, produce: Side['produce']): Side {
  return { name, worker, done: completions(worker), pickups: trackPickups(worker), produce };
}

function trackPickups(worker: Worker): Map<string, number> {
  const pickups = new Map<string, number>();
  worker.on('active', (job) => {
    if (job.processedOn !== undefined) pickups.set(job.id!, job.processedOn - job.timestamp);
  });
  return pickups;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
