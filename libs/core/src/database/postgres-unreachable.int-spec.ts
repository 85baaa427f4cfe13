import { testEnv } from '@stratus/testing';
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

  /** The error of a statement under way when its connection is reset. */
  async function resetUnder(run: () => Promise<unknown>): Promise<unknown> {
    const failed = run().then(
      () => new Error('the statement finished'),
      (err: unknown) => err,
    );
    // Reset once the statement is on the wire.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const socket of carried.splice(0)) socket.resetAndDestroy();
    return failed;
  }

  it.each([
    ['TypeORM', (ds: DataSource) => ds.query('SELECT pg_sleep(5)')],
    ['the hot pool', (ds: DataSource) => hotQuery(ds, 'SELECT pg_sleep(5)', [])],
  ])("takes a reset under a statement of %s's for ours: they talk to ours alone", async (_, statement) => {
    const ds = await new DataSource({ type: 'postgres', url: urlVia(port), poolSize: 1 }).initialize();
    try {
      const err = await resetUnder(() => statement(ds));
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
    const err = await resetUnder(() => client.query('SELECT pg_sleep(5)'));
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

  it('does not take a statement that failed for the server being away', async () => {
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
