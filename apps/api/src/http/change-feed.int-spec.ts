import { createTenant, dropDatabase, testEnv } from '@stratus/testing';
import { DataSource } from 'typeorm';
import { loadConfig, migrate, pruneChangeEvents } from '@stratus/core';
import { Client } from 'pg';
import { ChangeFeed, Watch } from './change-feed';

const INSERT_INSTANCE = `INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, status)
  VALUES ($1, 'u', $2, 'plain', 'm1.small', 'private', 'default', '{}', 'BUILD') RETURNING id`;

/** Long enough for many looks of the feed, on however loaded a machine: a change not heard by then was missed. */
const HEARD_WITHIN_MS = 60_000;
/** How long a test waits to see that nothing wakes a watch (several looks at the feed's interval). */
const QUIET_MS = 500;

/** The change feed against a migrated database of its own: who is woken by which commit. */
describe('ChangeFeed', () => {
  const url = new URL(testEnv().DATABASE_URL);
  url.pathname = `/stratus_change_feed_${process.pid}`;
  const config = loadConfig(testEnv({ DATABASE_URL: url.toString(), CHANGE_FEED_POLL_MS: '10' }));
  let db: DataSource;
  let feed: ChangeFeed;
  let projects: { a: string; b: string };

  beforeAll(async () => {
    db = await migrate(config);
    projects = { a: (await createTenant(db, undefined, config)).projectId, b: (await createTenant(db, undefined, config)).projectId };
    feed = new ChangeFeed(config);
  });

  afterAll(async () => {
    feed?.beforeApplicationShutdown();
    await db?.destroy();
    await dropDatabase(url.toString());
  });

  const insert = async (projectId: string) => (await db.query(INSERT_INSTANCE, [projectId, `i-${Math.random()}`]))[0].id as string;
  /** A watch of project a's instances, or of every project's with `{ every: true }`. */
  const watching = async (fn: (watch: Watch) => Promise<void>, of: string | { every: true } = projects.a) => {
    const watch = await feed.watch('instances', typeof of === 'string' ? of : undefined);
    try {
      await fn(watch);
    } finally {
      watch.close();
    }
  };

  it("wakes a watch of the project at a committed insert, update and delete, and not another project's", async () => {
    await watching(async (a) => {
      await watching(async (b) => {
        const id = await insert(projects.a);
        expect(await a.changed(HEARD_WITHIN_MS)).toBe(true);
        await db.query(`UPDATE instances SET status = 'ACTIVE' WHERE id = $1`, [id]);
        expect(await a.changed(HEARD_WITHIN_MS)).toBe(true);
        await db.query(`DELETE FROM instances WHERE id = $1`, [id]);
        expect(await a.changed(HEARD_WITHIN_MS)).toBe(true);
        expect(await b.changed(QUIET_MS)).toBe(false);
      }, projects.b);
    });
  });

  it("a watch of every project's rows wakes at any project's change", async () => {
    await watching(
      async (all) => {
        await insert(projects.b);
        expect(await all.changed(HEARD_WITHIN_MS)).toBe(true);
      },
      { every: true },
    );
  });

  it('a rolled back write wakes nobody', async () => {
    await watching(async (a) => {
      await db
        .transaction(async (m) => {
          await m.query(INSERT_INSTANCE, [projects.a, 'rolled-back']);
          // A commit of someone else meanwhile moves the feed on.
          await insert(projects.b);
          throw new Error('rollback');
        })
        .catch(() => undefined);
      expect(await a.changed(QUIET_MS)).toBe(false);
    });
  });

  it('hears a transaction that wrote before the watch began and committed after newer ones', async () => {
    const early = new Client({ connectionString: url.toString() });
    await early.connect();
    try {
      await early.query('BEGIN');
      await early.query(INSERT_INSTANCE, [projects.a, 'early']);
      await watching(async (a) => {
        // Later transactions commit first and the feed looks past them.
        for (let i = 0; i < 3; i++) await insert(projects.b);
        expect(await a.changed(QUIET_MS)).toBe(false);
        await early.query('COMMIT');
        expect(await a.changed(HEARD_WITHIN_MS)).toBe(true);
      });
    } finally {
      await early.end();
    }
  });

  it('starts looking again after a pause with nobody waiting, and a first watch is not woken by what came before it', async () => {
    await insert(projects.a);
    // No watch for many looks: the feed stops looking, and takes a new horizon with the next watch.
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    await watching(async (a) => {
      expect(await a.changed(QUIET_MS)).toBe(false);
      await insert(projects.a);
      expect(await a.changed(HEARD_WITHIN_MS)).toBe(true);
    });
  });

  it('keeps the events of the last minute and prunes the older ones', async () => {
    await insert(projects.a);
    await db.query(`UPDATE change_events SET at = at - interval '2 minutes' WHERE id < (SELECT max(id) FROM change_events)`);
    const before = Number((await db.query(`SELECT count(*) AS n FROM change_events`))[0].n);
    expect(before).toBeGreaterThan(1);
    expect(await pruneChangeEvents(db)).toBe(before - 1);
    expect(Number((await db.query(`SELECT count(*) AS n FROM change_events`))[0].n)).toBe(1);
  });
});
