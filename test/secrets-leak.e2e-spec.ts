import { redisConnection } from '@stratus/queue';
import { DB_PLACEMENT, createTenant, readIssuedPasswords, recordIssuedPassword, TestStack, testDataSource, waitForDatabase } from '@stratus/testing';
import Redis from 'ioredis';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

/** Every file under `dir` worth reading for a leaked password: logs and the servers' settings. */
function textFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        // Engine data folders hold the rows the suites wrote, not settings; templates hold nothing of a server.
        if (depth < 3 && !['templates', 'test-artifacts', 'base', 'global', 'pg_wal', 'store', 'metadata'].includes(entry.name)) walk(path, depth + 1);
      } else if (entry.isFile() && statSync(path).size < 64 * 1024 * 1024) {
        out.push(path);
      }
    }
  };
  walk(dir, 0);
  return out;
}

/**
 * Runs last (see test/sequencer.js): every password any suite of this run
 * was issued, plus a few made here, must appear nowhere at rest — not in any
 * PostgreSQL table, not in any Redis key of this installation (job data
 * included), not in the captured logs of the api and worker.
 */
describe('no database password at rest', () => {
  let stack: TestStack;
  let db: DataSource;
  let passwords: string[];

  beforeAll(async () => {
    stack = await TestStack.start();
    db = await testDataSource();
    const tenant = await createTenant(db);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    // Passwords of this suite's own, generated and chosen, through every engine, ready and failed.
    const creates: Array<[string, Record<string, unknown>, string]> = [
      ['databases', { name: 'leak-pg' }, 'db_password'],
      ['databases', { name: 'leak-pg-chosen', db_password: 'Chosen-Leak-Probe-1' }, 'db_password'],
      ['cache', { name: 'leak-cache' }, 'password'],
      ['cache', { name: 'leak-cache-six', version: '6', password: 'Chosen-Leak-Probe-2' }, 'password'],
      ['analytics', { name: 'leak-ch', db_password: 'Chosen-Leak-Probe-3' }, 'db_password'],
      ['relational-databases', { name: 'leak-maria', engine: 'mariadb' }, 'db_password'],
      ['relational-databases', { name: 'leak-maria-chosen', engine: 'mariadb', db_password: 'Chosen-Leak-Probe-4', superuser: true }, 'db_password'],
      ['relational-databases', { name: 'leak-mysql', engine: 'mysql', db_password: 'Chosen-Leak-Probe-5' }, 'db_password'],
    ];
    // Side by side: each server's start is mostly waiting, and none depends on another.
    await Promise.all(
      creates.map(async ([collection, body, field]) => {
        const res = await api.post(`/v1/${collection}`, { ...DB_PLACEMENT, ...body });
        expect(res.status).toBe(202);
        recordIssuedPassword(res.body[field]);
        const done = await waitForDatabase(api, collection as 'databases', res.body.id, ['ready', 'error'], { timeoutMs: 240_000, intervalMs: 200 });
        // A reset's password, through the rotate job and the server's settings, must not rest anywhere either.
        if (done.status === 'ready') {
          const reset = await api.post(`/v1/${collection}/${res.body.id}/reset-password`, {});
          expect(reset.status).toBe(200);
          recordIssuedPassword(reset.body[field]);
        }
      }),
    );
    passwords = readIssuedPasswords();
  }, 300_000);

  /** Which of the passwords `text` holds: one pass over the passwords, one assertion per place. */
  function leakedIn(text: string | Buffer): string[] {
    return passwords.filter((password) => text.includes(password));
  }

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  it('has passwords to look for', () => {
    expect(passwords.length).toBeGreaterThanOrEqual(8);
  });

  it('finds none in any PostgreSQL table', async () => {
    const tables: Array<{ table_name: string }> = await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['managed_databases', 'outbox']));
    for (const { table_name } of tables) {
      const rows: Array<{ row: string }> = await db.query(`SELECT t::text AS row FROM "${table_name}" t`);
      expect({ table: table_name, leaked: leakedIn(rows.map((r) => r.row).join('\n')) }).toEqual({ table: table_name, leaked: [] });
    }
  });

  it('finds none in any Redis key of this installation, job data included', async () => {
    const redis = new Redis(redisConnection(stack.env.REDIS_URL));
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `${stack.env.QUEUE_PREFIX}:*`, 'COUNT', 1000);
        keys.push(...batch);
        cursor = next;
      } while (cursor !== '0');
      expect(keys.some((k) => k.includes(':databases:'))).toBe(true);
      // Every key's whole value, read in pipelines of a few hundred keys (a round trip each, not one per key):
      // after a whole run there are thousands of keys, and the shared Redis may be slow to answer.
      const leaks: Array<{ key: string; leaked: string[] }> = [];
      for (let at = 0; at < keys.length; at += 500) {
        const batch = keys.slice(at, at + 500);
        const types = (await batch.reduce((p, key) => p.type(key), redis.pipeline()).exec())!.map(([err, type]) => {
          if (err) throw err;
          return type as string;
        });
        const reads = batch.reduce((p, key, i) => {
          const type = types[i];
          if (type === 'string') return p.get(key);
          if (type === 'hash') return p.hgetall(key);
          if (type === 'list') return p.lrange(key, 0, -1);
          if (type === 'set') return p.smembers(key);
          if (type === 'zset') return p.zrange(key, 0, -1);
          if (type === 'stream') return p.xrange(key, '-', '+');
          return p.echo('');
        }, redis.pipeline());
        const values = (await reads.exec())!;
        batch.forEach((key, i) => {
          const [err, value] = values[i];
          if (err) throw err;
          const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
          const leaked = leakedIn(text);
          if (leaked.length) leaks.push({ key, leaked });
        });
      }
      expect(leaks).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it("finds none in the run's logs or the servers' settings files", () => {
    const files = textFilesUnder(stack.env.DATA_DIR);
    expect(files.some((f) => f.endsWith('api.log'))).toBe(true);
    expect(files.some((f) => f.endsWith('worker.log'))).toBe(true);
    for (const file of files) {
      expect({ file, leaked: leakedIn(readFileSync(file)) }).toEqual({ file, leaked: [] });
    }
  });
});
