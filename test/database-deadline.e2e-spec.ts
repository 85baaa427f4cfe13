import { databaseServerKey, ManagedDatabase } from '@stratus/core';
import { QUEUES, redisConnection, resourceJob } from '@stratus/queue';
import { createTenant, databaseServersUnder, DB_PLACEMENT, HttpClient, recordIssuedPassword, Tenant, TestStack, testDataSource, waitFor, waitForDatabase } from '@stratus/testing';
import { Queue } from 'bullmq';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

/** The smallest deadline the config accepts (@Min(1000) in app.config.ts). */
const DEADLINE_MS = 1000;

describe('databases reconciler: provisioning past its deadline', () => {
  let stack: TestStack;
  let db: DataSource;
  let queue: Queue;
  let owner: Tenant;
  let api: HttpClient;

  beforeAll(async () => {
    // The api alone first: a create stays `provisioning` with its job queued and no worker to run it.
    stack = await TestStack.start({ DATABASE_PROVISION_DEADLINE_MS: String(DEADLINE_MS) }, ['api']);
    db = await testDataSource();
    owner = await createTenant(db);
    api = stack.http.with({ 'x-api-key': owner.apiKey });
    queue = new Queue(QUEUES.databases, { connection: redisConnection(stack.env.REDIS_URL), prefix: stack.env.QUEUE_PREFIX });
  });

  afterAll(async () => {
    await stack?.stop();
    await queue?.close();
    await db?.destroy();
  });

  it('fails a provisioning cache whose job never ran, starts nothing, and ignores the job if it shows up late', async () => {
    const created = await api.post('/v1/cache', { ...DB_PLACEMENT, name: 'too-late' });
    recordIssuedPassword(created.body?.password);
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('provisioning');
    const id: number = created.body.id;

    const row = await db.getRepository(ManagedDatabase).findOneByOrFail({ id });
    expect(row.provisionDeadline!.getTime() - row.createdAt.getTime()).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(row.provisionDeadline!.getTime() - row.createdAt.getTime()).toBeLessThanOrEqual(DEADLINE_MS + 1000);

    // Redis "loses" the create job (the outbox already marked it dispatched, so the relay will not bring it back).
    const key = databaseServerKey(row);
    const job = resourceJob('database.create', key, { databaseId: id, generation: row.generation });
    await waitFor('the create job to be queued', async () => (await queue.getJob(job.jobId)) !== undefined, { timeoutMs: 60_000, intervalMs: 20 });
    const queued = (await queue.getJobs(['waiting', 'delayed', 'prioritized', 'paused'])).filter((j) => j.data?.databaseId === id);
    expect(queued.map((j) => j.id)).toEqual([job.jobId]);
    await queued[0].remove();

    // Past the deadline before any worker exists.
    const wait = row.provisionDeadline!.getTime() - Date.now() + 100;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));

    // The worker's start-up sweep (and every periodic one) sees the row past its deadline.
    await stack.startService('worker');
    const failed = await waitForDatabase(api, 'cache', id, ['error'], { timeoutMs: 60_000, intervalMs: 50 });
    expect(failed).toMatchObject({ id, status: 'error', floating_ip: null });
    expect(failed.status_reason).toMatch(/deadline/);

    const after = await db.getRepository(ManagedDatabase).findOneByOrFail({ id });
    expect(after.status).toBe('error');
    expect(after.statusReason).toMatch(/deadline/);

    // A late delivery of the create job is ignored: the row has moved on, no server is started.
    const late = await queue.add(job.name, job.payload, { jobId: job.jobId });
    await waitFor('the late job to finish', async () => ['completed', 'failed'].includes(await late.getState()), { timeoutMs: 60_000, intervalMs: 20 });
    expect(await late.getState()).toBe('completed');
    expect((await db.getRepository(ManagedDatabase).findOneByOrFail({ id })).status).toBe('error');

    // Nothing is running, and no server folder was left behind.
    expect(databaseServersUnder(stack.env.DATA_DIR).has(key)).toBe(false);
    expect(existsSync(join(stack.env.DATA_DIR, 'databases', key))).toBe(false);
  });
});
