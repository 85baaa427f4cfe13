import { testEnv, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { hotQuery } from './hot-queries';
import { looksLikePostgresUnreachable } from './postgres-unreachable';

/**
 * The errors a real PostgreSQL connection gives as it goes, read as they
 * come: through a loopback forwarder to the test server that can reset the
 * connections it carries, as a crashed server's host does (a statement's
 * read then fails with ECONNRESET, which names no port).
 */
describe('looksLikePostgresUnreachable', () => {
  const target = new URL(testEnv().DATABASE_URL);
  let forwarder: Server;
  let port: number;
  const carried: Socket[] = [];

  beforeAll(async () => {
    forwarder = createServer((client) => {
      const server = new Socket().connect(Number(target.port), target.hostname);
      client.pipe(server).pipe(client);
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
      client.on('error', () => undefined);
      server.on('error', () => undefined);
      carried.push(client);
    });
    forwarder.listen(0, '127.0.0.1');
    await once(forwarder, 'listening');
    port = (forwarder.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of carried) socket.destroy();
    await new Promise((resolve) => forwarder.close(resolve));
  });

  /** The test server's own database, whatever the suite's installs: these tests touch no table. */
  function urlVia(viaPort: number): string {
    const url = new URL(target);
    url.port = String(viaPort);
    url.pathname = '/postgres';
    return url.toString();
  }

  /**
   * The error of a statement under way when its connection is reset: once
   * the server runs it (a marker finds it in pg_stat_activity), so the reset
   * comes under the statement, not before it is sent.
   */
  async function resetUnder(run: (sql: string) => Promise<unknown>): Promise<unknown> {
    const sql = `SELECT pg_sleep(5) -- ${randomUUID()}`;
    const failed = run(sql).then(
      () => new Error('the statement finished'),
      (err: unknown) => err,
    );
    const observer = new Client({ connectionString: urlVia(Number(target.port)) });
    await observer.connect();
    try {
      await waitFor('the statement to run', async () => (await observer.query(`SELECT 1 FROM pg_stat_activity WHERE query = $1 AND state = 'active'`, [sql])).rowCount === 1, {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
    } finally {
      await observer.end();
    }
    for (const socket of carried.splice(0)) socket.resetAndDestroy();
    return failed;
  }

  it.each([
    ['TypeORM', (ds: DataSource, sql: string) => ds.query(sql)],
    ['the hot pool', (ds: DataSource, sql: string) => hotQuery(ds, sql, [])],
  ])("takes a reset under a statement of %s's for ours: they talk to ours alone", async (_, statement) => {
    const ds = await new DataSource({ type: 'postgres', url: urlVia(port), poolSize: 1 }).initialize();
    try {
      const err = await resetUnder((sql) => statement(ds, sql));
      expect(err).toMatchObject({ name: 'QueryFailedError', driverError: { code: 'ECONNRESET' } });
      expect((err as { driverError: { port?: number } }).driverError.port).toBeUndefined();
      expect(looksLikePostgresUnreachable(err, port)).toBe(true);
    } finally {
      await ds.destroy().catch(() => undefined);
    }
  });

  it("does not take the same reset under a bare pg client for ours: it may be a managed database's", async () => {
    const client = new Client({ connectionString: urlVia(port) });
    client.on('error', () => undefined);
    await client.connect();
    const err = await resetUnder((sql) => client.query(sql));
    expect(err).toMatchObject({ code: 'ECONNRESET' });
    expect(looksLikePostgresUnreachable(err, port)).toBe(false);
  });

  it('takes a refused connect for ours on our port only', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const refusing = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await new Client({ connectionString: urlVia(refusing) }).connect().then(
      () => new Error('connected'),
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'ECONNREFUSED', port: refusing });
    expect(looksLikePostgresUnreachable(err, refusing)).toBe(true);
    expect(looksLikePostgresUnreachable(err, refusing + 1)).toBe(false);
  });

  it('does not take a statement the server refused (division by zero) for it being away', async () => {
    const ds = await new DataSource({ type: 'postgres', url: urlVia(port), poolSize: 1 }).initialize();
    try {
      const err = await ds.query('SELECT 1 / 0').catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'QueryFailedError', driverError: { code: '22012' } });
      expect(looksLikePostgresUnreachable(err, port)).toBe(false);
    } finally {
      await ds.destroy();
    }
  });
});
