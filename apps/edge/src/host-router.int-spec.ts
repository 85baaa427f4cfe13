import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, IncomingMessage, request, Server } from 'node:http';
import { AddressInfo, connect, createServer as createTcpServer, Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, keepAliveArmed, waitFor } from '@stratus/testing';
import { HostRouter } from './host-router';

/** The router (a real HAProxy) end to end on loopback: a client, the router, and an instance that says what it received. */

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(port: number, opts: { method?: string; path?: string; headers?: Record<string, string | number>; body?: Buffer; chunks?: Buffer[] }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path ?? '/', headers: opts.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    if (opts.headers?.expect) req.on('continue', () => req.end(opts.body));
    else if (opts.chunks) {
      for (const c of opts.chunks) req.write(c);
      req.end();
    } else req.end(opts.body);
  });
}

describe('HostRouter', () => {
  let router: HostRouter;
  let routerDir: string;
  let routerPort: number;
  let instance: Server;
  let instancePort: number;
  /** The router's port on the instance for the latest upgrade request. */
  let lastTunnelPort = 0;

  beforeAll(async () => {
    // Echoes what it received: method, headers, and the body's length and hash.
    instance = createServer((req, res) => {
      const hash = createHash('sha256');
      let length = 0;
      req.on('data', (d: Buffer) => {
        hash.update(d);
        length += d.length;
      });
      req.on('end', () => {
        if (req.url === '/chunked') {
          res.setHeader('x-kind', 'chunked');
          res.write('part one, ');
          setTimeout(() => res.end('part two'), 5);
          return;
        }
        if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.end(Buffer.alloc(1024 * 1024, 'b'));
          return;
        }
        if (req.url === '/hop') {
          res.writeHead(200, { connection: 'keep-alive, x-private', 'x-private': 'secret', 'keep-alive': 'timeout=60', 'x-public': 'yes', 'content-length': '2' });
          res.end('ok');
          return;
        }
        const body = JSON.stringify({ method: req.method, headers: req.headers, length, sha256: hash.digest('hex') });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      });
    });
    // Upgrade requests: 101 with what it saw, then echoes every byte back.
    instance.on('upgrade', (req: IncomingMessage, socket: Socket, early: Buffer) => {
      lastTunnelPort = socket.remotePort!;
      const saw = Buffer.from(JSON.stringify(req.headers)).toString('base64');
      // RFC 6455 4.2.2: the key's proof, which HAProxy checks on a WebSocket 101.
      const key = req.headers['sec-websocket-key'];
      const accept = key ? `Sec-WebSocket-Accept: ${createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')}\r\n` : '';
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${req.headers.upgrade}\r\nConnection: Upgrade\r\n${accept}x-saw: ${saw}\r\n\r\n`);
      if (early.length) socket.write(early);
      socket.pipe(socket);
    });
    instance.keepAliveTimeout = 10_000;
    instance.listen(0, '127.0.0.1');
    await once(instance, 'listening');
    instancePort = (instance.address() as AddressInfo).port;

    routerDir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'));
    router = new HostRouter({ dir: routerDir, threads: 1 });
    routerPort = await freePort();
    await router.setHosts([
      { hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort },
      { hostname: 'dead.localhost', ip: '127.0.0.1', port: 1 },
    ]);
    expect(await router.listen({ host: '127.0.0.1', port: routerPort })).toBe('ok');
  });

  afterAll(async () => {
    await router.close();
    rmSync(routerDir, { recursive: true, force: true });
    instance.close();
    instance.closeAllConnections();
  });

  const json = (r: Reply) => JSON.parse(r.body.toString());

  it('routes by Host (case and port ignored) and forwards end-to-end headers only', async () => {
    const r = await call(routerPort, {
      headers: {
        host: 'APP.localhost:8080',
        'x-keep': '1',
        connection: 'keep-alive, x-drop',
        'x-drop': 'no',
        te: 'trailers',
        'x-forwarded-for': '10.0.0.9',
        'x-forwarded-proto': 'https',
      },
    });
    expect(r.status).toBe(200);
    const seen = json(r).headers;
    expect(seen).toMatchObject({
      host: 'APP.localhost:8080',
      'x-keep': '1',
      'x-forwarded-for': '10.0.0.9, 127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'APP.localhost:8080',
    });
    expect(seen['x-drop']).toBeUndefined();
    expect(seen.te).toBeUndefined();
  });

  it("sets x-forwarded-proto and -host even when the client's Connection header names them", async () => {
    const r = await call(routerPort, { headers: { host: 'app.localhost', connection: 'x-forwarded-proto, x-forwarded-host, x-forwarded-for' } });
    expect(r.status).toBe(200);
    expect(json(r).headers).toMatchObject({ 'x-forwarded-proto': 'http', 'x-forwarded-host': 'app.localhost', 'x-forwarded-for': '127.0.0.1' });
  });

  it('drops hop-by-hop response headers and those the response Connection names', async () => {
    const r = await call(routerPort, { path: '/hop', headers: { host: 'app.localhost' } });
    expect(r.headers['x-public']).toBe('yes');
    expect(r.headers['x-private']).toBeUndefined();
    expect(r.headers['keep-alive']).not.toBe('timeout=60');
    expect(r.body.toString()).toBe('ok');
  });

  it('unknown host: 404 in the error envelope', async () => {
    const r = await call(routerPort, { headers: { host: 'nobody.localhost' } });
    expect(r.status).toBe(404);
    expect(json(r)).toEqual({ error: { code: 'not_found', message: 'no proxy host nobody.localhost' } });
  });

  it('an instance that does not answer: 502 in the envelope', async () => {
    const r = await call(routerPort, { headers: { host: 'dead.localhost' } });
    expect(r.status).toBe(502);
    expect(json(r)).toEqual({ error: { code: 'bad_gateway', message: 'the instance behind dead.localhost did not answer' } });
  });

  it.each([
    ['content-length', false],
    ['chunked', true],
  ])('a 3 MB upload with Expect: 100-continue and %s arrives intact', async (_label, chunked) => {
    const body = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const headers: Record<string, string | number> = { host: 'app.localhost', expect: '100-continue' };
    if (chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = body.length;
    const r = await call(routerPort, { method: 'POST', headers, body });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({ length: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    // End to end: the instance itself answered the 100 Continue.
    expect(json(r).headers.expect).toBe('100-continue');
  });

  it('HEAD keeps the announced length and no body; the next request on the pool still works', async () => {
    const head = await call(routerPort, { method: 'HEAD', headers: { host: 'app.localhost' } });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
    expect(json(await call(routerPort, { headers: { host: 'app.localhost' } })).method).toBe('GET');
  });

  it('relays a chunked response and a large streamed one', async () => {
    const chunked = await call(routerPort, { path: '/chunked', headers: { host: 'app.localhost' } });
    expect(chunked.body.toString()).toBe('part one, part two');
    expect(chunked.headers['x-kind']).toBe('chunked');
    const big = await call(routerPort, { path: '/big', headers: { host: 'app.localhost' } });
    expect(big.body.length).toBe(1024 * 1024);
  });

  it('an instance that answers something other than HTTP: 502, not a crash', async () => {
    // HAProxy resets the connection after such an answer.
    const bad = createTcpServer((s) => s.on('error', () => undefined).on('data', () => s.end('SSH-2.0-OpenSSH_9.2\r\n\r\n')));
    bad.listen(0, '127.0.0.1');
    await once(bad, 'listening');
    await router.setHosts([
      { hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort },
      { hostname: 'bad.localhost', ip: '127.0.0.1', port: (bad.address() as AddressInfo).port },
    ]);
    try {
      const r = await call(routerPort, { headers: { host: 'bad.localhost' } });
      expect(r.status).toBe(502);
      expect(json(r).error.code).toBe('bad_gateway');
    } finally {
      bad.close();
    }
  });

  it('a retargeted host sends new requests to the new port', async () => {
    const other = createServer((_req, res) => res.end('other'));
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: (other.address() as AddressInfo).port }]);
    try {
      expect((await call(routerPort, { headers: { host: 'app.localhost' } })).body.toString()).toBe('other');
    } finally {
      await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
      other.close();
      other.closeAllConnections();
    }
  });
  it('a change to thousands of proxy hosts at once applies whole (the map is sent in parts)', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({ hostname: `app-${i}.some-longer-project-name.localhost`, ip: '127.0.0.1', port: instancePort }));
    await router.setHosts([...many, { hostname: 'dead.localhost', ip: '127.0.0.1', port: 1 }]);
    try {
      for (const name of [many[0].hostname, many[1500].hostname, many[2999].hostname]) {
        expect((await call(routerPort, { headers: { host: name } })).status).toBe(200);
      }
      expect((await call(routerPort, { headers: { host: 'app.localhost' } })).status).toBe(404);
    } finally {
      await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
    }
  });

  it('a client that abandons its upload ends the upload to the instance at once, not at the response timeout', async () => {
    let sawClose: (at: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (sawClose = resolve));
    const slow = createServer((req) => {
      req.on('data', () => undefined);
      req.on('close', () => sawClose(Date.now()));
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    await router.setHosts([{ hostname: 'slow.localhost', ip: '127.0.0.1', port: (slow.address() as AddressInfo).port }]);
    try {
      const client = connect(routerPort, '127.0.0.1');
      await once(client, 'connect');
      client.write(`POST /upload HTTP/1.1\r\nHost: slow.localhost\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(5000)}`);
      await new Promise((r) => setTimeout(r, 100));
      const gone = Date.now();
      client.destroy();
      const at = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 30_000))]);
      expect(at - gone).toBeLessThan(30_000);
    } finally {
      await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
      slow.close();
      slow.closeAllConnections();
    }
  });

  /** An upgrade request through the router: the 101 and its socket, or the answer when there is no upgrade. */
  function upgrade(host: string, protocol = 'echo'): Promise<{ status: number; headers: IncomingHttpHeaders; socket?: Socket; body?: string }> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: routerPort,
        path: '/live',
        headers: {
          host,
          connection: 'Upgrade',
          upgrade: protocol,
          ...(protocol === 'websocket' ? { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' } : {}),
        },
      });
      req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  async function roundTrip(socket: Socket, text: string): Promise<string> {
    socket.write(text);
    let got = '';
    while (got.length < text.length) got += (await once(socket, 'data'))[0].toString();
    return got;
  }

  it('upgrade requests (WebSocket) become a tunnel to the instance, its 101 and the Upgrade header passed on', async () => {
    await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
    const up = await upgrade('App.Localhost', 'websocket');
    expect(up.status).toBe(101);
    expect(up.headers.upgrade).toBe('websocket');
    const saw = JSON.parse(Buffer.from(String(up.headers['x-saw']), 'base64').toString());
    expect(saw).toMatchObject({ upgrade: 'websocket', connection: expect.stringMatching(/^upgrade$/i), 'x-forwarded-host': 'App.Localhost', 'x-forwarded-for': '127.0.0.1' });
    expect(await roundTrip(up.socket!, 'ping')).toBe('ping');
    expect(await roundTrip(up.socket!, 'x'.repeat(200_000))).toBe('x'.repeat(200_000));
    // A tunnel may idle for hours; keep-alive finds a peer that vanished (`option clitcpka/srvtcpka`, haproxy.config.ts).
    // Right after data the kernel may show the retransmit timer instead: the keep-alive one follows once all is acknowledged.
    await waitFor('keep-alive on the client side', () => keepAliveArmed(routerPort, up.socket!.localPort!), { timeoutMs: 30_000, intervalMs: 20 });
    await waitFor('keep-alive on the instance side', () => keepAliveArmed(lastTunnelPort, instancePort), { timeoutMs: 30_000, intervalMs: 20 });
    up.socket!.destroy();
  });

  it('upgrade to an unknown host: 404, to an instance that does not answer: 502, in the envelope', async () => {
    await router.setHosts([
      { hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort },
      { hostname: 'dead.localhost', ip: '127.0.0.1', port: 1 },
    ]);
    const unknown = await upgrade('nobody.localhost');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body!)).toEqual({ error: { code: 'not_found', message: 'no proxy host nobody.localhost' } });
    const dead = await upgrade('dead.localhost');
    expect(dead.status).toBe(502);
    expect(JSON.parse(dead.body!).error.code).toBe('bad_gateway');
  });
});

describe('HostRouter: the HAProxy process', () => {
  const dirs: string[] = [];
  const routers: HostRouter[] = [];
  let instance: Server;
  let instancePort: number;

  const newRouter = (dir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'))) => {
    if (!dirs.includes(dir)) dirs.push(dir);
    const router = new HostRouter({ dir, threads: 1 });
    routers.push(router);
    return router;
  };

  const haproxyPid = (dir: string) => Number(readFileSync(join(dir, 'haproxy.pid'), 'utf8').trim());
  const alive = (pid: number) => {
    try {
      return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
    } catch {
      return false;
    }
  };

  beforeAll(async () => {
    instance = createServer((_req, res) => res.end('hello'));
    instance.listen(0, '127.0.0.1');
    await once(instance, 'listening');
    instancePort = (instance.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const r of routers) await r.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    instance.close();
    instance.closeAllConnections();
  });

  it('a listener that cannot be bound: HAProxy says why, and the status is not ok', async () => {
    const taken = createTcpServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const router = newRouter();
      const state = await router.listen({ host: '127.0.0.1', port: (taken.address() as AddressInfo).port });
      expect(state).toMatch(/^haproxy: .*cannot bind socket/);
      expect(router.status).toBe(state);
    } finally {
      taken.close();
    }
  });

  it('an HAProxy that dies is started again, with the proxy hosts it had', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'));
    const router = newRouter(dir);
    const port = await freePort();
    await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
    expect(await router.listen({ host: '127.0.0.1', port })).toBe('ok');
    const first = haproxyPid(dir);
    process.kill(first, 'SIGKILL');
    await waitFor('the proxy host served again', async () => (await call(port, { headers: { host: 'app.localhost' } })).body.toString() === 'hello', {
      timeoutMs: 10_000,
    });
    expect(haproxyPid(dir)).not.toBe(first);
    // 'ok' once its runtime socket answers too, which may come a poll (20 ms) after the listener serves.
    await waitFor('the router to report it ok', () => router.status === 'ok', { timeoutMs: 30_000 });
  });

  it('an HAProxy left by an edge that was killed is stopped by the next start in the same directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'));
    const port = await freePort();
    const crashed = newRouter(dir);
    expect(await crashed.listen({ host: '127.0.0.1', port })).toBe('ok');
    const orphan = haproxyPid(dir);
    // The edge that ran it is gone without closing it; a new edge starts on the same data directory and port.
    const next = newRouter(dir);
    await next.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
    expect(await next.listen({ host: '127.0.0.1', port })).toBe('ok');
    expect(alive(orphan)).toBe(false);
    // (The first router is still here in this process and would start its HAProxy again: it must not.)
    await crashed.close();
    expect((await call(port, { headers: { host: 'app.localhost' } })).body.toString()).toBe('hello');
  });

  it('started as root, HAProxy serves as the unprivileged haproxy user', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'));
    const router = newRouter(dir);
    await router.setHosts([{ hostname: 'app.localhost', ip: '127.0.0.1', port: instancePort }]);
    const port = await freePort();
    expect(await router.listen({ host: '127.0.0.1', port })).toBe('ok');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${haproxyPid(dir)}/status`, 'utf8'))![1]);
    if (process.getuid!() === 0) expect(uid).not.toBe(0);
    else expect(uid).toBe(process.getuid!());
    expect((await call(port, { headers: { host: 'app.localhost' } })).body.toString()).toBe('hello');
  });

  it('close stops HAProxy: the listener refuses connections', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratus-host-router-'));
    const router = newRouter(dir);
    const port = await freePort();
    expect(await router.listen({ host: '127.0.0.1', port })).toBe('ok');
    const pid = haproxyPid(dir);
    await router.close();
    expect(alive(pid)).toBe(false);
    await expect(call(port, { headers: { host: 'app.localhost' } })).rejects.toThrow(/ECONNREFUSED/);
  });
});
