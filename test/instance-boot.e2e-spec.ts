import { DEMO_INSTANCE, fakeBootLog, FakeControl, readBootLog, useSuite, waitForInstance } from '@stratus/testing';
import { readFileSync } from 'node:fs';

/** Long enough that five boots one after another would clearly not overlap. */
const BOOT_MS = 3_000;

/**
 * The worker holds no slot while an instance boots: with one slot, boots
 * of several instances run side by side. The fake provider's boots take a
 * fixed time and are logged (start, end) by the worker that ran them.
 */
describe('instance create does not hold a worker slot while the instance boots', () => {
  const s = useSuite({ PROVIDER: 'fake', FAKE_PROVIDER_BOOT_MS: String(BOOT_MS), WORKER_CONCURRENCY: '1' });

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
    const control = new FakeControl();
    control.boots.push(...boots);
    expect(control.maxConcurrentBoots()).toBeGreaterThanOrEqual(4);

    // ACTIVE follows the end of the boot, never precedes it.
    const rows: Array<{ id: string; updated_at: Date }> = await s.db.query('SELECT id, updated_at FROM instances WHERE id = ANY($1)', [ids]);
    for (const row of rows) {
      const boot = boots.find((b) => b.id === row.id)!;
      expect(boot.readyAt).not.toBeNull();
      expect(row.updated_at.getTime()).toBeGreaterThanOrEqual(boot.readyAt!);
    }
  });
});
