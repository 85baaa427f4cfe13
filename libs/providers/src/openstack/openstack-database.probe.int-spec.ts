import { createServer } from 'node:http';
import { AddressInfo, createServer as createTcpServer, Server } from 'node:net';
import { engineAnswers } from './openstack-database.probe';

/**
 * The readiness probe of database servers on OpenStack, against engines
 * that answer here: the test machine's PostgreSQL and Redis, and an HTTP
 * server standing in for ClickHouse's `/ping`. (The testbed's servers run
 * nothing, so this is where the probe's yes is seen.)
 */
describe('engineAnswers', () => {
  const listening: Server[] = [];
  afterAll(() => listening.forEach((s) => s.close()));

  async function listen(server: Server): Promise<number> {
    listening.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it("answers yes for PostgreSQL's reply to an SSLRequest and Redis' to PING", async () => {
    expect(await engineAnswers('postgres', '127.0.0.1', 5432)).toBe(true);
    expect(await engineAnswers('redis', '127.0.0.1', 6379)).toBe(true);
  });

  it('answers no for another engine on the port, and for nothing listening', async () => {
    // Each engine's first step sent to the other: neither reply is the one expected.
    expect(await engineAnswers('redis', '127.0.0.1', 5432)).toBe(false);
    expect(await engineAnswers('postgres', '127.0.0.1', 6379)).toBe(false);
    const closed = await listen(createServer());
    listening.pop()!.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await engineAnswers('postgres', '127.0.0.1', closed)).toBe(false);
  });

  it("answers yes for ClickHouse's /ping only when it says 200", async () => {
    const ok = await listen(createServer((req, res) => res.writeHead(req.url === '/ping' ? 200 : 404).end('Ok.\n')));
    expect(await engineAnswers('clickhouse', '127.0.0.1', ok)).toBe(true);
    const starting = await listen(createServer((_req, res) => res.writeHead(503).end()));
    expect(await engineAnswers('clickhouse', '127.0.0.1', starting)).toBe(false);
  });

  it('answers no for a listener that accepts and says nothing, within its own time limit', async () => {
    const port = await listen(createTcpServer(() => undefined));
    expect(await engineAnswers('redis', '127.0.0.1', port)).toBe(false);
  });
});
