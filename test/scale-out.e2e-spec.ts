import { Instance } from '@stratus/core';
import { QUEUES, redisConnection } from '@stratus/queue';
import { childPids, cpuTimeUs, createTenant, HttpClient, instanceLeadersUnder, TestStack, testDataSource, waitFor } from '@stratus/testing';
import { QueueEvents } from 'bullmq';
import { join } from 'node:path';
import { DataSource, In } from 'typeorm';

const COUNT = 200;
const BATCH = 20;
/** The batch after which the second worker is SIGKILLed (and, a batch later, started again, as start.js would). */
const KILL_AFTER_BATCH = 4;
const RECONCILE_INTERVAL_MS = 2_000;
const OUTBOX_RELAY_INTERVAL_MS = 1_000;
const CLUSTER_RECONCILE_INTERVAL_MS = 2_000;
const CLUSTER_AUTOSCALE_INTERVAL_MS = 5_000;

/** A scheduled job's id is `repeat:<scheduler id>:<the period's time in ms>` (BullMQ job schedulers). */
function periodOf(jobId: string): { scheduler: string; millis: number } | null {
  const m = /^repeat:(.+):(\d+)$/.exec(jobId);
  return m ? { scheduler: m[1], millis: Number(m[2]) } : null;
}

/**
 * Two api processes (one port, node:cluster) and two workers on one
 * PostgreSQL and Redis, one worker SIGKILLed halfway through 200 creates:
 * every instance is built exactly once and ends ACTIVE, both api processes
 * serve, and every maintenance schedule fires once per period however many
 * workers keep it.
 */
describe('scale-out: two apis and two workers', () => {
  let stack: TestStack;
  let db: DataSource;
  let api: HttpClient;
  let events: QueueEvents;
  /** Completed maintenance jobs by id, with how often each completed. */
  const completed = new Map<string, number>();

  beforeAll(async () => {
    stack = await TestStack.start({
      API_PROCESSES: '2',
      RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
      OUTBOX_RELAY_INTERVAL_MS: String(OUTBOX_RELAY_INTERVAL_MS),
      CLUSTER_RECONCILE_INTERVAL_MS: String(CLUSTER_RECONCILE_INTERVAL_MS),
      CLUSTER_AUTOSCALE_INTERVAL_MS: String(CLUSTER_AUTOSCALE_INTERVAL_MS),
    });
    await stack.startService('worker', 'worker-2');
    await stack.workerReady(undefined, 'worker-2');
    db = await testDataSource();
    api = stack.http.with({ 'x-api-key': (await createTenant(db)).apiKey });
    events = new QueueEvents(QUEUES.maintenance, { connection: redisConnection(stack.env.REDIS_URL), prefix: stack.env.QUEUE_PREFIX });
    events.on('completed', ({ jobId }) => completed.set(jobId, (completed.get(jobId) ?? 0) + 1));
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await events?.close();
    await stack?.stop();
    await db?.destroy();
  });

  it('builds every instance exactly once and fires every schedule once per period', async () => {
    const watchedFrom = Date.now();
    // Processes earlier suites left on this installation are theirs to answer for, not this test's.
    const earlier = new Set(instanceLeadersUnder(join(stack.env.DATA_DIR, 'instances')).keys());
    const servers = childPids(stack.process('api')!.pid!, 'main.js');
    expect(servers).toHaveLength(2);
    const cpuBefore = servers.map((pid) => cpuTimeUs([pid]));

    const ids: string[] = [];
    let killedAt = 0;
    for (let batch = 0; batch < COUNT / BATCH; batch++) {
      if (batch === KILL_AFTER_BATCH) {
        await stack.stopService('worker-2', 'SIGKILL');
        killedAt = Date.now();
      }
      if (batch === KILL_AFTER_BATCH + 1) await stack.startService('worker', 'worker-2');
      const replies = await Promise.all(
        Array.from({ length: BATCH }, (_, i) =>
          api.post('/v1/instances', { name: `scale-${batch * BATCH + i}`, image_id: 'plain', flavor_id: 'm1.nano', network_id: 'private', keypair_name: 'default' }),
        ),
      );
      for (const r of replies) {
        expect(r.status).toBe(202);
        ids.push(r.body.id);
      }
    }

    // Both api processes served: each spent CPU on the creates (the socket's owner hands connections out in turn).
    const cpuSpent = servers.map((pid, i) => {
      const now = cpuTimeUs([pid]);
      return now.user + now.system - cpuBefore[i].user - cpuBefore[i].system;
    });
    for (const spent of cpuSpent) expect(spent).toBeGreaterThan(50_000);

    await waitFor(
      `all ${COUNT} instances to be ACTIVE`,
      async () => {
        const rows = await db.getRepository(Instance).find({ where: { id: In(ids) }, select: ['id', 'status'] });
        return rows.length === COUNT && rows.every((r) => r.status === 'ACTIVE');
      },
      { timeoutMs: 600_000, intervalMs: 1_000 },
    );
    const watchedMs = Date.now() - watchedFrom;

    // The process table is the truth: one group leader per instance, none for anything else.
    const leaders = instanceLeadersUnder(join(stack.env.DATA_DIR, 'instances'));
    const ours = ids.map((id) => leaders.get(id) ?? []);
    expect(ours.filter((pids) => pids.length !== 1)).toEqual([]);
    const known = new Set((await db.query('SELECT id FROM instances')).map((r: { id: string }) => r.id));
    expect([...leaders.keys()].filter((id) => !known.has(id) && !earlier.has(id))).toEqual([]);

    // Every schedule: one job per period, each completed once, none closer to the last than its period.
    const every: Record<string, number> = {
      'outbox-relay': OUTBOX_RELAY_INTERVAL_MS,
      'instances-reconcile': RECONCILE_INTERVAL_MS,
      'volumes-reconcile': RECONCILE_INTERVAL_MS,
      'databases-reconcile': RECONCILE_INTERVAL_MS,
      'routes-reconcile': RECONCILE_INTERVAL_MS,
      'hosts-reconcile': RECONCILE_INTERVAL_MS,
      'clusters-reconcile': CLUSTER_RECONCILE_INTERVAL_MS,
      'clusters-autoscale': CLUSTER_AUTOSCALE_INTERVAL_MS,
    };
    expect([...completed.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    const periods = new Map<string, number[]>();
    for (const jobId of completed.keys()) {
      const p = periodOf(jobId);
      if (p) periods.set(p.scheduler, [...(periods.get(p.scheduler) ?? []), p.millis]);
    }
    // One scheduler of each, whichever worker keeps them (not one per worker under ids of its own).
    expect([...periods.keys()].filter((id) => !(id in every) && id !== 'catalog-sync')).toEqual([]);
    for (const [scheduler, ms] of Object.entries(every)) {
      const times = (periods.get(scheduler) ?? []).sort((a, b) => a - b);
      const closer = times.slice(1).filter((t, i) => t - times[i] < ms);
      expect({ scheduler, closer }).toEqual({ scheduler, closer: [] });
      // It kept firing after the kill. Periods may be skipped (a run that
      // outlasts its period on a loaded machine, or one held by the dead
      // worker until its lock lapses: the scheduler catches up to the next
      // slot rather than running the missed ones), never doubled.
      expect({ scheduler, firedAfterKill: times.some((t) => t > killedAt) }).toEqual({ scheduler, firedAfterKill: true });
      expect(times.length).toBeLessThanOrEqual(Math.ceil(watchedMs / ms) + 1);
    }
  }, 900_000);
});
