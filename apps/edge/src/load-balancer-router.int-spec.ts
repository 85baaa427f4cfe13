import type { ListenerSpec, ObservedBackend } from '@stratus/providers';
import { freePortRange, waitFor } from '@stratus/testing';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, get as httpGet, Server as HttpServer } from 'node:http';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BalancerSpec } from './edge.types';
import { EdgeLog } from './haproxy.process';
import { runtimeCommand } from './haproxy.runtime';
import { LoadBalancerRouter } from './load-balancer-router';

/**
 * The load balancers (real HAProxy processes) end to end on loopback:
 * clients, the listener, and backends that are small Node servers.
 */

const HOST = '127.0.0.1';

/** A TCP backend: says its name on every connection, then echoes what it is sent. */
interface TcpBackend {
  name: string;
  port: number;
  server: Server;
  sockets: Set<Socket>;
}

async function tcpBackend(name: string): Promise<TcpBackend> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.write(`${name}\n`);
    s.pipe(s);
  });
  server.listen(0, HOST);
  await once(server, 'listening');
  return { name, port: (server.address() as AddressInfo).port, server, sockets };
}

/**
 * The backend dies between two requests of the client loop: its listening
 * socket is closed (synchronously: the port refuses from the next request
 * on). Between requests, because a connection its kernel had already
 * accepted would be reset with it: HAProxy saw that connect succeed, so
 * there is nothing to retry, and no balancer could answer for it. What the
 * balancer answers for is every connection it makes after.
 */
function kill(backend: { server: Server | HttpServer }): void {
  backend.server.close();
}

/** One request on a new connection: the name of the backend that answered it, or why there was no answer. */
function tcpRequest(port: number, n: number): Promise<{ name?: string; error?: string }> {
  return new Promise((resolve) => {
    const s = connect({ host: HOST, port });
    let text = '';
    const request = `request ${n}\n`;
    s.setTimeout(10_000, () => s.destroy(new Error('no answer in 10 s')));
    s.on('connect', () => s.write(request));
    s.on('data', (d) => {
      text += String(d);
      const name = text.slice(0, text.indexOf('\n'));
      if (text.includes('\n') && text === `${name}\n${request}`) {
        s.destroy();
        resolve({ name });
      }
    });
    s.on('error', (err) => resolve({ error: err.message }));
    s.on('close', () => resolve({ error: `closed after ${JSON.stringify(text)}` }));
  });
}

/** A connection left open once the backend said its name. */
function greeted(port: number): Promise<{ name: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: HOST, port });
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no greeting in 10 s')));
    socket.on('data', (d) => {
      text += String(d);
      if (!text.includes('\n')) return;
      socket.setTimeout(0);
      resolve({ name: text.slice(0, text.indexOf('\n')), socket });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
  });
}

/** An HTTP backend: answers its name, and its health check path with `health`. */
interface HttpBackend {
  name: string;
  port: number;
  server: HttpServer;
  health: number;
}

async function httpBackend(name: string, health = 200): Promise<HttpBackend> {
  const backend = { name, health } as HttpBackend;
  backend.server = createHttpServer((req, res) => {
    if (req.url === '/healthz') res.writeHead(backend.health).end();
    else res.end(`${name} ${req.headers.host}`);
  });
  backend.server.listen(0, HOST);
  await once(backend.server, 'listening');
  backend.port = (backend.server.address() as AddressInfo).port;
  return backend;
}

/** One HTTP request on a new connection (no agent): status and body, or why there was none. */
function httpRequest(port: number, host: string): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = httpGet({ host: HOST, port, path: '/', headers: { host }, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', (err) => resolve({ error: err.message }));
  });
}

describe('LoadBalancerRouter', () => {
  let dir: string;
  let ports: { from: number; to: number };
  let router: LoadBalancerRouter;
  const servers: Array<Server | HttpServer> = [];
  const logged: string[] = [];
  const log: EdgeLog = (level, msg, extra) => logged.push(`${level} ${msg} ${JSON.stringify(extra)}`);

  const listener = (id: string, port: number, over: Partial<ListenerSpec> = {}): ListenerSpec => ({
    id,
    address: HOST,
    port,
    protocol: 'tcp',
    // Checks often enough for a test, and a backend taken out only after 15 failures in a row
    // (4.5 s): longer than HAProxy's retries of one backend last (3, a second apart), so a
    // dead backend stays in rotation for longer than the balancer could wait it out: the
    // requests it gets are answered only if each retry goes to another backend.
    check: { kind: 'connect', intervalMs: 300, fall: 15, rise: 1 },
    ...over,
  });
  const active = (b: { port: number }) => ({ address: HOST, port: b.port, state: 'active' as const });

  /** The listener's backend on `port`, as `observe` reports it. */
  async function observed(id: string, port: number): Promise<ObservedBackend | undefined> {
    return (await router.observe(id))?.backends.find((b) => b.port === port);
  }

  /** A counter of the listener's HAProxy backend (`show stat`), e.g. `wredis`, the connections it sent to another server after a failure. */
  async function backendCounter(port: number, listenerId: string, field: string): Promise<number> {
    const csv = await runtimeCommand(join(dir, `lb-127_0_0_1_${port}.sock`), `show stat l_${listenerId} 2 -1`);
    const [header, row] = csv.split('\n');
    return Number(row.split(',')[header.replace(/^# /, '').split(',').indexOf(field)]);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stratus-lb-'));
    ports = await freePortRange(4);
    router = new LoadBalancerRouter({ dir, threads: 2, log, sweepMs: 100 });
  });

  afterAll(async () => {
    await router?.close();
    await Promise.all(
      servers.map((s) => {
        const closed = new Promise((r) => s.close(r));
        if ('closeAllConnections' in s) s.closeAllConnections();
        return closed;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('TCP: a backend killed under a client loop costs no request; health checks take it out', async () => {
    const [a, b] = [await tcpBackend('a'), await tcpBackend('b')];
    servers.push(a.server, b.server);
    const port = ports.from;
    const lb: BalancerSpec = { listener: listener('tcp-kill', port), backends: [active(a), active(b)] };
    expect(await router.apply([lb])).toEqual({ 'tcp-kill': 'ok' });
    await waitFor('both backends to be up', async () => (await observed('tcp-kill', a.port))?.health === 'up' && (await observed('tcp-kill', b.port))?.health === 'up', {
      timeoutMs: 30_000,
    });

    const answers: Array<{ name?: string; error?: string }> = [];
    let running = true;
    let killNow = false;
    let killedAt = -1;
    const loop = (async () => {
      for (let n = 0; running; n++) {
        if (killNow && killedAt < 0) {
          kill(a);
          killedAt = answers.length;
        }
        answers.push(await tcpRequest(port, n));
      }
    })();
    try {
      await waitFor('both backends to answer the loop', () => answers.some((r) => r.name === 'a') && answers.some((r) => r.name === 'b'), { timeoutMs: 30_000, intervalMs: 10 });
      killNow = true;
      await waitFor('the loop to kill a backend', () => killedAt >= 0, { timeoutMs: 30_000, intervalMs: 10 });
      await waitFor('the health checks to take the killed backend out', async () => (await observed('tcp-kill', a.port))?.health === 'down', { timeoutMs: 30_000, intervalMs: 20 });
      const downAt = answers.length;
      await waitFor('more requests after it was taken out', () => answers.length > downAt + 20, { timeoutMs: 30_000, intervalMs: 10 });
      running = false;
      await loop;
      expect(answers.length).toBeGreaterThan(killedAt);
      expect(answers.filter((r) => r.error)).toEqual([]);
      expect(answers.slice(killedAt).every((r) => r.name === 'b')).toBe(true);
      // Requests did go to the dead backend before the checks took it out, and HAProxy sent them on to the live one.
      expect(await backendCounter(port, 'tcp-kill', 'wredis')).toBeGreaterThan(0);
    } finally {
      running = false;
      await loop;
    }
  });

  it('HTTP: a backend killed under a client loop costs no request', async () => {
    const [a, b] = [await httpBackend('a'), await httpBackend('b')];
    servers.push(a.server, b.server);
    const port = ports.from + 1;
    const lb: BalancerSpec = { listener: listener('http-kill', port, { protocol: 'http', hosts: ['kill.lb.test'] }), backends: [active(a), active(b)] };
    expect(await router.apply([lb])).toEqual({ 'http-kill': 'ok' });
    await waitFor('both backends to be up', async () => (await observed('http-kill', a.port))?.health === 'up' && (await observed('http-kill', b.port))?.health === 'up', {
      timeoutMs: 30_000,
    });

    const answers: Array<{ status?: number; body?: string; error?: string }> = [];
    let running = true;
    let killNow = false;
    let killedAt = -1;
    const loop = (async () => {
      while (running) {
        if (killNow && killedAt < 0) {
          kill(a);
          killedAt = answers.length;
        }
        answers.push(await httpRequest(port, 'kill.lb.test'));
      }
    })();
    try {
      await waitFor('both backends to answer the loop', () => answers.some((r) => r.body?.startsWith('a ')) && answers.some((r) => r.body?.startsWith('b ')), {
        timeoutMs: 30_000,
        intervalMs: 10,
      });
      killNow = true;
      await waitFor('the loop to kill a backend', () => killedAt >= 0, { timeoutMs: 30_000, intervalMs: 10 });
      await waitFor('the health checks to take the killed backend out', async () => (await observed('http-kill', a.port))?.health === 'down', {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
      const downAt = answers.length;
      await waitFor('more requests after it was taken out', () => answers.length > downAt + 20, { timeoutMs: 30_000, intervalMs: 10 });
      running = false;
      await loop;
      expect(answers.filter((r) => r.status !== 200)).toEqual([]);
      expect(answers.slice(killedAt).every((r) => r.body === 'b kill.lb.test')).toBe(true);
      expect(await backendCounter(port, 'http-kill', 'wredis')).toBeGreaterThan(0);
    } finally {
      running = false;
      await loop;
    }
  });

  it('a backend added and another drained, then removed, under streaming connections: none is cut; new connections go to the others', async () => {
    const [a, b, c] = [await tcpBackend('a'), await tcpBackend('b'), await tcpBackend('c')];
    servers.push(a.server, b.server, c.server);
    const port = ports.from + 2;
    const spec = (backends: BalancerSpec['backends']): BalancerSpec => ({ listener: listener('streams', port), backends });
    expect(await router.apply([spec([active(a), active(b)])])).toEqual({ streams: 'ok' });
    await waitFor('both backends to be up', async () => (await observed('streams', a.port))?.health === 'up' && (await observed('streams', b.port))?.health === 'up', {
      timeoutMs: 30_000,
    });

    /** Long-lived connections, each sending a chunk every few milliseconds and counting its echo. */
    interface Stream {
      socket: Socket;
      backend?: string;
      sent: number;
      echoed: number;
      cut: boolean;
      /** The test's own close, not a cut. */
      ended?: boolean;
      timer?: NodeJS.Timeout;
    }
    const streams: Stream[] = [];
    for (let i = 0; i < 8; i++) {
      const socket = connect({ host: HOST, port });
      const stream: Stream = { socket, sent: 0, echoed: 0, cut: false };
      let greeting = '';
      socket.on('data', (d: Buffer) => {
        if (stream.backend === undefined) {
          greeting += d.toString('latin1');
          const nl = greeting.indexOf('\n');
          if (nl < 0) return;
          stream.backend = greeting.slice(0, nl);
          stream.echoed += greeting.length - nl - 1;
        } else stream.echoed += d.length;
      });
      socket.on('close', () => (stream.cut = !stream.ended));
      socket.on('error', () => undefined);
      stream.timer = setInterval(() => {
        socket.write(Buffer.alloc(1024, 'x'));
        stream.sent += 1024;
      }, 5);
      streams.push(stream);
    }
    const end = async (s: Stream) => {
      clearInterval(s.timer);
      await waitFor('the stream to be echoed in full', () => s.echoed === s.sent, { timeoutMs: 30_000, intervalMs: 10 });
      s.ended = true;
      s.socket.destroy();
    };
    try {
      await waitFor('every stream to flow', () => streams.every((s) => s.backend && s.echoed > 4096), { timeoutMs: 30_000, intervalMs: 10 });
      expect(new Set(streams.map((s) => s.backend))).toEqual(new Set(['a', 'b']));

      // C added, A drained, in one change.
      expect(await router.apply([spec([{ ...active(a), state: 'draining' }, active(b), active(c)])])).toEqual({ streams: 'ok' });
      await waitFor('the added backend to be up', async () => (await observed('streams', c.port))?.health === 'up', { timeoutMs: 30_000 });
      expect(await observed('streams', a.port)).toMatchObject({ state: 'draining', connections: streams.filter((s) => s.backend === 'a').length });
      // Held open, so that least connections spreads them: a drained backend that took new ones would get its share.
      const fresh: Array<{ name: string; socket: Socket }> = [];
      try {
        for (let n = 0; n < 16; n++) fresh.push(await greeted(port));
        expect(fresh.filter((r) => r.name !== 'b' && r.name !== 'c').map((r) => r.name)).toEqual([]);
        expect(new Set(fresh.map((r) => r.name))).toEqual(new Set(['b', 'c']));
      } finally {
        for (const r of fresh) r.socket.destroy();
      }

      // A removed: its streams go on; it is deleted once they are done.
      expect(await router.apply([spec([active(b), active(c)])])).toEqual({ streams: 'ok' });
      expect(await observed('streams', a.port)).toMatchObject({ state: 'removing' });
      const mark = streams.map((s) => s.echoed);
      await waitFor('every stream to flow on', () => streams.every((s, i) => s.echoed > mark[i] + 4096), { timeoutMs: 30_000, intervalMs: 10 });
      expect(streams.filter((s) => s.cut)).toEqual([]);
      for (const s of streams.filter((s) => s.backend === 'a')) await end(s);
      await waitFor('the removed backend to be deleted', async () => (await observed('streams', a.port)) === undefined, { timeoutMs: 30_000 });
      for (const s of streams.filter((s) => s.backend !== 'a')) await end(s);
      expect(streams.filter((s) => s.cut)).toEqual([]);
    } finally {
      for (const s of streams) {
        clearInterval(s.timer);
        s.socket.destroy();
      }
    }
  });

  it('HTTP by Host: listeners sharing an address and port each serve their own names; a check path keeps a sick backend out', async () => {
    const [a, b, sick] = [await httpBackend('a'), await httpBackend('b'), await httpBackend('sick', 503)];
    servers.push(a.server, b.server, sick.server);
    const port = ports.from + 3;
    const http = (id: string, hosts: string[]) => listener(id, port, { protocol: 'http', hosts, check: { kind: 'http', path: '/healthz', intervalMs: 200, fall: 1, rise: 1 } });
    const balancers: BalancerSpec[] = [
      { listener: http('host-a', ['a.lb.test']), backends: [active(a), active(sick)] },
      { listener: http('host-b', ['b.lb.test', 'www.b.lb.test']), backends: [active(b)] },
    ];
    expect(await router.apply(balancers)).toEqual({ 'host-a': 'ok', 'host-b': 'ok' });
    await waitFor('the sick backend to be found out', async () => (await observed('host-a', sick.port))?.health === 'down', { timeoutMs: 30_000 });
    await waitFor('the others to be up', async () => (await observed('host-a', a.port))?.health === 'up' && (await observed('host-b', b.port))?.health === 'up', {
      timeoutMs: 30_000,
    });

    for (let i = 0; i < 5; i++) expect(await httpRequest(port, 'a.lb.test')).toEqual({ status: 200, body: 'a a.lb.test' });
    expect(await httpRequest(port, 'B.LB.test.:8080')).toEqual({ status: 200, body: 'b B.LB.test.:8080' });
    expect(await httpRequest(port, 'www.b.lb.test')).toEqual({ status: 200, body: 'b www.b.lb.test' });
    const unknown = await httpRequest(port, 'c.lb.test');
    expect([unknown.status, JSON.parse(unknown.body!).error.code]).toEqual([404, 'not_found']);
    // Another listener's host on the same address and port is refused for the listener that asks second.
    expect(await router.apply([...balancers, { listener: http('host-c', ['a.lb.test']), backends: [] }])).toMatchObject({
      'host-a': 'ok',
      'host-c': `host a.lb.test on ${HOST}:${port} is another listener's`,
    });
  });
});
