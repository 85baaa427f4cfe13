import { Instance } from '@stratus/core';
import { QUEUES, redisConnection } from '@stratus/queue';
import { childPids, createTenant, HttpClient, instanceLeadersUnder, processAlive, TestStack, testDataSource, waitFor } from '@stratus/testing';
import { Queue } from 'bullmq';
import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, In } from 'typeorm';

/** The bound under test; the suites' processes get it explicitly so the checks below do not hang on a default. */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Beyond the bound: closing pools, flushing logs, the process exiting. */
const EXIT_GRACE_MS = 5_000;

/** Resolves with how the process ended and how long after `since` it did. */
function exitOf(child: ChildProcess, since: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode, ms: 0 });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - since })));
}

/**
 * SIGTERM is a stop, not a crash: what a process holds when it arrives ends
 * the way it would have without it, within SHUTDOWN_TIMEOUT_MS.
 */
describe('graceful shutdown', () => {
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;

  beforeAll(async () => {
    stack = await TestStack.start({ API_PROCESSES: '2', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) }, ['api']);
    db = await testDataSource();
    api = stack.http.with({ 'x-api-key': (await createTenant(db)).apiKey });
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  it('answers a long poll under way and stops the api within the bound', async () => {
    const primary = stack.process('api')!;
    const servers = childPids(primary.pid!, 'main.js');
    expect(servers).toHaveLength(2);
    const first = await api.get('/v1/instances');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;

    // A minute-long poll: nothing changes, so only the shutdown can end it early.
    const polled = api.get('/v1/instances?wait=60', { 'if-none-match': etag });
    // It waits once its process listens for changes (the LISTEN connection is made for the first poll).
    await waitFor('the long poll to wait', async () => {
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'stratus-api-changes' AND datname = current_database()`);
      return n > 0;
    });
    // The watch is taken right after the LISTEN answers; this covers the hop to it.
    await sleep(500);

    const signalled = Date.now();
    const exited = exitOf(primary, signalled);
    primary.kill('SIGTERM');
    try {
      const reply = await polled;
      const answeredMs = Date.now() - signalled;
      // Its normal answer: nothing changed, so 304, at once rather than after its minute.
      expect(reply.status).toBe(304);
      expect(answeredMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);

      const exit = await exited;
      expect(exit).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
      expect(exit.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_GRACE_MS);
      expect(servers.filter(processAlive)).toEqual([]);
      // Nothing listens any more.
      await expect(fetch(`${stack.http.baseUrl}/ready`)).rejects.toThrow();
    } finally {
      await exited;
      await stack.startService('api');
    }
  });

  it('lets a worker finish its jobs on SIGTERM, even while it boots, and the next worker finish the rest', async () => {
    const queue = new Queue(QUEUES.instances, { connection: redisConnection(stack.env.REDIS_URL), prefix: stack.env.QUEUE_PREFIX });
    try {
      // Queued before any worker runs, so the worker takes them as soon as its
      // queues are consumed: inside its boot, with the start-up sweeps still to run.
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.post('/v1/instances', { name: `stop-${i}`, image_id: 'plain', flavor_id: 'm1.nano', network_id: 'private', keypair_name: 'default' }),
        ),
      );
      for (const r of replies) expect(r.status).toBe(202);
      const ids = replies.map((r) => r.body.id as string);

      // SIGTERM while the worker runs a build.
      await stack.startService('worker');
      await waitFor('the worker to run a create', async () => (await queue.getActiveCount()) > 0, { timeoutMs: 180_000, intervalMs: 10 });
      const worker = stack.process('worker')!;
      const signalled = Date.now();
      const exited = exitOf(worker, signalled);
      worker.kill('SIGTERM');
      const exit = await exited;
      expect(exit).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
      expect(exit.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_GRACE_MS);
      // It finished (or put back) what it held: no job is left locked by a process that is gone.
      expect(await queue.getActiveCount()).toBe(0);
      // ...and none of them failed on the way out (a pool closed under a job would show here).
      const jobs = (await queue.getJobs(['completed', 'failed', 'delayed', 'wait', 'waiting-children', 'prioritized'])).filter((j) => ids.includes(j.data.instanceId));
      expect(jobs.filter((j) => j.stacktrace?.length).map((j) => ({ id: j.id, errors: j.stacktrace }))).toEqual([]);
      // Only this test's jobs: the slot's queue also holds what earlier suites failed on purpose.
      const failed = (await queue.getFailed()).filter((j) => ids.includes(j.data.instanceId));
      expect(failed.map((j) => ({ id: j.id, reason: j.failedReason }))).toEqual([]);

      await stack.startService('worker');
      await waitFor(
        'every instance to be ACTIVE',
        async () => {
          const rows = await db.getRepository(Instance).find({ where: { id: In(ids) }, select: ['id', 'status'] });
          return rows.length === ids.length && rows.every((r) => r.status === 'ACTIVE');
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      );
      // Built once each: one process group per instance, whichever worker started it.
      const leaders = instanceLeadersUnder(join(stack.env.DATA_DIR, 'instances'));
      expect(ids.map((id) => leaders.get(id)?.length ?? 0)).toEqual(ids.map(() => 1));
      // Every line a job logs names the job, those of the jobs a worker took up inside its boot too.
      const activeLines = stack
        .logLines('worker')
        .filter((line) => line.startsWith('{') && line.includes('"instance active"'))
        .map((line) => JSON.parse(line))
        .filter((line) => ids.includes(line.instance));
      expect(new Set(activeLines.map((line) => line.instance)).size).toBe(ids.length);
      expect(activeLines.filter((line) => !line.job_id?.startsWith(`instance-create-${line.instance}-`)).map((line) => line.instance)).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
