import { createManaged, DEMO_INSTANCE, fakeBootLog, FakeBoot, FakeControl, readBootLog, useSuite, waitForDatabase, waitForInstance } from '@stratus/testing';
import { readFileSync } from 'node:fs';

/** Long enough that five boots one after another would clearly not overlap. */
const BOOT_MS = 3_000;

/** The most of `starts` that were under way at one moment. */
function maxConcurrent(starts: FakeBoot[]): number {
  const control = new FakeControl();
  control.boots.push(...starts);
  return control.maxConcurrentBoots();
}

/**
 * The worker holds no slot while an instance boots: with one slot, boots
 * of several instances run side by side. The fake provider's boots take a
 * fixed time and are logged (start, end) by the worker that ran them.
 */
describe('instance create does not hold a worker slot while the instance boots', () => {
  const s = useSuite({ FAKE_PROVIDER_BOOT_MS: String(BOOT_MS), WORKER_CONCURRENCY: '1' });

  it('five instances boot at once on a worker with one slot, and each is ACTIVE only once booted', async () => {
    // Its jobs wait in the queue until then, and how long it takes to load is the machine's business.
    await s.stack.workerReady();
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => s.api.post('/v1/instances', { name: `boot-${i}`, ...DEMO_INSTANCE })));
    expect(created.map((c) => c.status)).toEqual([202, 202, 202, 202, 202]);
    const ids = created.map((c) => c.body.id as string);
    // Generous: one after another would take 15 s; the bound is for a loaded machine, not the claim.
    await Promise.all(ids.map((id) => waitForInstance(s.api, id, ['ACTIVE'], 120_000)));

    const boots = readBootLog(readFileSync(fakeBootLog(s.stack.env.DATA_DIR), 'utf8')).filter((b) => ids.includes(b.id));
    expect(boots.map((b) => b.id).sort()).toEqual([...ids].sort());
    expect(maxConcurrent(boots)).toBeGreaterThanOrEqual(4);

    // ACTIVE follows the end of the boot, never precedes it.
    const rows: Array<{ id: string; updated_at: Date }> = await s.db.query('SELECT id, updated_at FROM instances WHERE id = ANY($1)', [ids]);
    for (const row of rows) {
      const boot = boots.find((b) => b.id === row.id)!;
      expect(boot.readyAt).not.toBeNull();
      expect(row.updated_at.getTime()).toBeGreaterThanOrEqual(boot.readyAt!);
    }
  });
});

/** The same for database servers: a job does not wait for its server to start. */
describe('database create does not hold a worker slot while the server starts', () => {
  const s = useSuite({ FAKE_PROVIDER_DATABASE_START_MS: String(BOOT_MS), DATABASE_WORKER_CONCURRENCY: '1' });

  it('five cache servers start at once on a worker with one slot, and each is ready only once started', async () => {
    await s.stack.workerReady();
    // createManaged insists on 202 and records the issued password for the leak check.
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => createManaged(s.api, 'cache', { name: `start-${'abcde'[i]}`, version: '7' })));
    const ids = created.map((c) => c.body.id as number);
    await Promise.all(ids.map((id) => waitForDatabase(s.api, 'cache', id, ['ready'], { timeoutMs: 120_000, intervalMs: 100 })));

    const keys = ids.map((id) => `redis-${id}`);
    const starts = readBootLog(readFileSync(fakeBootLog(s.stack.env.DATA_DIR), 'utf8')).filter((b) => keys.includes(b.id));
    expect(starts.map((b) => b.id).sort()).toEqual([...keys].sort());
    expect(maxConcurrent(starts)).toBeGreaterThanOrEqual(4);

    const rows: Array<{ id: number; updated_at: Date }> = await s.db.query('SELECT id, updated_at FROM managed_databases WHERE id = ANY($1)', [ids]);
    for (const row of rows) {
      const start = starts.find((b) => b.id === `redis-${row.id}`)!;
      expect(row.updated_at.getTime()).toBeGreaterThanOrEqual(start.readyAt!);
    }
  });
});
