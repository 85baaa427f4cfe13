import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DriverError } from './driver-error';
import { PostgresTurns, TURN_SESSION_NAME } from './shared-turns';

// Advisory locks on the local PostgreSQL: no table, so any database does. Each PostgresTurns stands for a worker process.
const url = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A promise and the function that settles it: the work of a turn, held open until the test lets it end. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Polls (bounded, generously: a loaded machine) until `check` holds. */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('PostgresTurns: one process at a time on a key', () => {
  let admin: Client;
  /** Sessions of ours waiting for an advisory lock. */
  const waiting = async () =>
    Number(
      (
        await admin.query(`SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1`, [
          TURN_SESSION_NAME,
        ])
      ).rows[0].n,
    );

  beforeAll(async () => {
    admin = new Client({ connectionString: url });
    await admin.connect();
  });

  afterAll(() => admin.end());

  it("runs a second process's work on the key only once the first's has ended", async () => {
    const key = `spec ${randomUUID()}`;
    const [one, two] = [new PostgresTurns(url, 120_000), new PostgresTurns(url, 120_000)];
    const order: string[] = [];
    const first = gate();
    const a = one.take(key, async () => {
      order.push('one starts');
      await first.opened;
      order.push('one ends');
    });
    await until('the first turn to start', () => order.length === 1);
    const b = two.take(key, async () => {
      order.push('two starts');
    });
    // The second is at PostgreSQL, waiting for the lock, not yet running.
    await until('the second turn to wait', async () => (await waiting()) === 1);
    expect(order).toEqual(['one starts']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['one starts', 'one ends', 'two starts']);
  });

  it('runs work on two keys at once', async () => {
    const turns = [new PostgresTurns(url, 120_000), new PostgresTurns(url, 120_000)];
    const held = gate();
    let inside = 0;
    const runs = turns.map((t) =>
      t.take(`spec ${randomUUID()}`, async () => {
        inside += 1;
        await held.opened;
      }),
    );
    await until('both turns to run', () => inside === 2);
    held.open();
    await Promise.all(runs);
  });

  it("gives the key to the next as soon as a holder's session ends (a worker killed mid-turn), and lets the holder's work end on its own", async () => {
    const key = `spec ${randomUUID()}`;
    const [one, two] = [new PostgresTurns(url, 120_000), new PostgresTurns(url, 120_000)];
    const first = gate();
    let [firstRuns, secondRan] = [false, false];
    const a = one.take(key, async () => {
      firstRuns = true;
      await first.opened;
    });
    await until('the first turn to start', () => firstRuns);
    const b = two.take(key, async () => {
      secondRan = true;
    });
    await until('the second turn to wait', async () => (await waiting()) === 1);
    // What a killed process leaves: its session ended by PostgreSQL.
    await admin.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1`,
      [TURN_SESSION_NAME],
    );
    await b;
    expect(secondRan).toBe(true);
    first.open();
    await a;
  });

  it('is a retryable error when the turn does not come within the wait', async () => {
    const key = `spec ${randomUUID()}`;
    const holder = new PostgresTurns(url, 120_000);
    const held = gate();
    let started = false;
    const a = holder.take(key, async () => {
      started = true;
      await held.opened;
    });
    await until('the first turn to start', () => started);
    const refused = await new PostgresTurns(url, 200).take(key, async () => 'ran').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DriverError);
    expect(refused).toMatchObject({ code: 'retryable', message: expect.stringMatching(/lock timeout/) });
    held.open();
    await a;
  });

  it('is a retryable error, and runs nothing, when PostgreSQL cannot be reached', async () => {
    let ran = false;
    const refused = await new PostgresTurns('postgres://postgres@127.0.0.1:1/none', 1_000)
      .take('spec', async () => {
        ran = true;
      })
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'retryable', message: expect.stringMatching(/^waiting for the turn on spec: /) });
    expect(ran).toBe(false);
  });
});
