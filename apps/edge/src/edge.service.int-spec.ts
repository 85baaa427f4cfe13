import { loadConfig, migrate } from '@stratus/core';
import { ListenerSpec, LocalLoadBalancerDriver } from '@stratus/providers';
import { dropDatabase, freePort, freePortRange, REPO_ROOT, testEnv, waitFor } from '@stratus/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { AddressInfo, connect, createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { request } from 'undici';

/**
 * The edge process (compiled) as the worker's load-balancer driver reaches
 * it: the driver writes PostgreSQL, the edge serves it, and `observe` reads
 * back what HAProxy said. Its own throwaway database, so no other edge
 * (another test slot's, a development one) serves these rows.
 */

const HOST = '127.0.0.1';

/** Says its name on every connection. */
async function namedBackend(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => {
    s.on('error', () => undefined);
    s.end(`${name}\n`);
  });
  server.listen(0, HOST);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** The name the backend behind `port` says, or 'refused' / 'closed'. */
function knock(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: HOST, port });
    let text = '';
    s.setTimeout(5_000, () => s.destroy());
    s.on('data', (d) => (text += String(d)));
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'closed'));
    s.on('close', () => resolve(text.trim() || 'closed'));
  });
}

/** An HTTP server that says its name; and what the edge's HTTP listener answers for `host` (status and body). */
async function namedSite(name: string): Promise<{ server: Server; port: number }> {
  const server = createHttpServer((_req, res) => res.end(name));
  server.listen(0, HOST);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

async function viaHost(port: number, host: string): Promise<string> {
  const res = await request(`http://${HOST}:${port}/`, { headers: { host } });
  return `${res.statusCode} ${await res.body.text()}`;
}

describe('EdgeService: load balancers from PostgreSQL', () => {
  const database = `stratus_lb_edge_${process.pid}`;
  const env = testEnv();
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${database}`;
  let dir: string;
  let ds: DataSource;
  let edge: ChildProcess;
  let output = '';
  const backends: Server[] = [];
  const driver = new LocalLoadBalancerDriver(() => ds);
  let range: { from: number; to: number };
  let httpPort: number;
  /** The driver as the worker has it: the gateway's range, and a watch on the edge's verdicts. */
  let gatewayDriver: LocalLoadBalancerDriver;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stratus-edge-lb-'));
    ds = await migrate(loadConfig({ ...env, DATABASE_URL: url.toString() }));
    range = await freePortRange(2);
    httpPort = await freePort();
    gatewayDriver = new LocalLoadBalancerDriver(() => ds, { gateway: { host: HOST, range }, http: { host: HOST, port: httpPort } }, url.toString());
    edge = spawn(process.execPath, ['-r', './scripts/paths.js', 'dist/apps/edge/src/main.js'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...env,
        DATABASE_URL: url.toString(),
        DATA_DIR: dir,
        GATEWAY_HOST: HOST,
        GATEWAY_PORT_RANGE: `${range.from}-${range.to}`,
        EDGE_HTTP_PORT: String(httpPort),
        // Backend health reaches the table at each apply: a resync often enough for a test.
        EDGE_RESYNC_INTERVAL_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    edge.stdout!.on('data', (d) => (output = (output + d).slice(-20_000)));
    edge.stderr!.on('data', (d) => (output = (output + d).slice(-20_000)));
  });

  afterAll(async () => {
    if (edge && edge.exitCode === null) {
      const exited = once(edge, 'exit');
      edge.kill('SIGTERM');
      await exited;
    }
    for (const s of backends) s.close();
    await ds?.destroy();
    await dropDatabase(url.toString());
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a listener the driver asked for; backends drained and removed by the driver; observe says what HAProxy saw', async () => {
    const [a, b] = [await namedBackend('a'), await namedBackend('b')];
    backends.push(a.server, b.server);
    const port = await freePort();
    const id = 'edge-spec';
    await driver.ensureListener({ id, address: HOST, port, protocol: 'tcp', check: { kind: 'connect', intervalMs: 200, fall: 2, rise: 1 } });
    await driver.addBackend(id, { address: HOST, port: a.port });
    await driver.addBackend(id, { address: HOST, port: b.port });
    const bothUp = async () => {
      const seen = await driver.observe(id);
      return seen?.status === 'ok' && seen.backends.length === 2 && seen.backends.every((x) => x.health === 'up');
    };
    await waitFor('both backends up', bothUp, { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}; the edge said: ${output.slice(-2_000)}`);
    });
    const names = new Set<string>();
    for (let i = 0; i < 10; i++) names.add(await knock(port));
    expect(names).toEqual(new Set(['a', 'b']));

    await driver.drainBackend(id, { address: HOST, port: a.port });
    await driver.removeBackend(id, { address: HOST, port: a.port });
    await waitFor('the removed backend to be gone', async () => (await driver.observe(id))?.backends.every((x) => x.port !== a.port), { timeoutMs: 30_000 });
    for (let i = 0; i < 5; i++) expect(await knock(port)).toBe('b');

    await driver.deleteListener(id);
    await waitFor('the listener to be gone', async () => (await knock(port)) === 'refused', { timeoutMs: 30_000 });
  });

  it("serves a listener on the gateway's range from the gateway HAProxy once it has its backend, and says so on the watch", async () => {
    const target = await namedBackend('gw');
    backends.push(target.server);
    const heard: string[] = [];
    const stop = gatewayDriver.watch((x) => heard.push(x));
    try {
      const id = 'route-edge-spec';
      await gatewayDriver.ensureListener({ id, address: HOST, port: range.from, protocol: 'tcp', check: { kind: 'connect' } });
      expect(await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [id])).toEqual([{ router: 'gateway' }]);
      // No backend yet: nothing to serve, neither bound nor failed (seen by two resyncs, so one began after the write).
      const heartbeatAfter = async (t: Date) =>
        waitFor('an apply of the edge', async () => (await ds.query(`SELECT heartbeat_at FROM edge_nodes WHERE heartbeat_at > $1`, [t]))[0]?.heartbeat_at as Date | undefined, {
          timeoutMs: 30_000,
          intervalMs: 20,
        });
      const [{ now }] = await ds.query(`SELECT now()`);
      await heartbeatAfter(await heartbeatAfter(now));
      expect((await gatewayDriver.observe(id))?.status).toBe('pending');
      expect(await knock(range.from)).toBe('refused');

      await gatewayDriver.addBackend(id, { address: HOST, port: target.port });
      await waitFor('the gateway to serve it', async () => (await gatewayDriver.observe(id))?.status === 'ok', { timeoutMs: 30_000 }).catch((err: Error) => {
        throw new Error(`${err.message}; the edge said: ${output.slice(-2_000)}`);
      });
      expect(await knock(range.from)).toBe('gw');
      await waitFor('the verdict on the watch', () => heard.includes(id), { timeoutMs: 30_000 });

      await gatewayDriver.deleteListener(id);
      await waitFor('the port to close', async () => (await knock(range.from)) === 'refused', { timeoutMs: 30_000 });
    } finally {
      stop();
    }
  });
  it("serves an http listener on its HTTP listener's address and port from the Host map once it has its backend; says why it cannot serve another's", async () => {
    const site = await namedSite('site');
    const newer = await namedSite('newer');
    backends.push(site.server, newer.server);
    const spec: ListenerSpec = { id: 'host-edge-spec', address: HOST, port: httpPort, protocol: 'http', hosts: ['spec.localhost'], check: { kind: 'connect' } };
    await gatewayDriver.ensureListener(spec);
    expect(await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [spec.id])).toEqual([{ router: 'hosts' }]);
    await gatewayDriver.addBackend(spec.id, { address: HOST, port: site.port });
    await waitFor('the host router to serve it', async () => (await gatewayDriver.observe(spec.id))?.status === 'ok', { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}; the edge said: ${output.slice(-2_000)}`);
    });
    expect(await viaHost(httpPort, 'spec.localhost')).toBe('200 site');

    // The same name on a newer listener (its proxy host made again before the old listener went): the newer one serves.
    const again = { ...spec, id: 'host-edge-spec-2' };
    await gatewayDriver.ensureListener(again);
    await gatewayDriver.addBackend(again.id, { address: HOST, port: newer.port });
    await waitFor('the newer listener to serve the name', async () => (await viaHost(httpPort, 'spec.localhost')) === '200 newer', { timeoutMs: 30_000, intervalMs: 20 });
    await waitFor('the older one to say why not', async () => (await gatewayDriver.observe(spec.id))?.status === "host spec.localhost is another listener's", {
      timeoutMs: 30_000,
    });

    // A worker that names another HTTP listener than this edge's: an error, not served from elsewhere.
    const elsewhere = new LocalLoadBalancerDriver(() => ds, { http: { host: HOST, port: httpPort + 1 } });
    const other = { ...spec, id: 'host-edge-spec-3', port: httpPort + 1, hosts: ['other.localhost'] };
    await elsewhere.ensureListener(other);
    await elsewhere.addBackend(other.id, { address: HOST, port: site.port });
    await waitFor(
      'the verdict on the other listener',
      async () => (await elsewhere.observe(other.id))?.status === `this edge's HTTP listener is ${HOST}:${httpPort}, not ${HOST}:${httpPort + 1}`,
      {
        timeoutMs: 30_000,
      },
    );

    for (const id of [again.id, other.id]) await gatewayDriver.deleteListener(id);
    await waitFor('the older listener to serve the name again', async () => (await viaHost(httpPort, 'spec.localhost')) === '200 site', { timeoutMs: 30_000, intervalMs: 20 });
    await gatewayDriver.deleteListener(spec.id);
    await waitFor('the name to be gone', async () => (await viaHost(httpPort, 'spec.localhost')).startsWith('404 '), { timeoutMs: 30_000, intervalMs: 20 });
  });
});
