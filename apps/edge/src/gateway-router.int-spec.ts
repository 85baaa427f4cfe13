import { PORT_BUSY, PORT_TAKEN } from '@stratus/core';
import { freePortRange, keepAliveArmed, waitFor } from '@stratus/testing';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { RouteSpec } from './edge.types';
import { GatewayRouter } from './gateway-router';
import { EdgeLog } from './haproxy.process';

/** The gateway (a real HAProxy holding a small port range) end to end on loopback: a client, the route, and a target on raw sockets. */

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Sends `payload`, half-closes, and collects everything until the route closes the connection. */
async function exchange(port: number, payload: Buffer): Promise<Buffer> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  const parts: Buffer[] = [];
  socket.on('data', (d) => parts.push(d));
  socket.end(payload);
  await once(socket, 'end');
  socket.destroy();
  return Buffer.concat(parts);
}

/** 'refused', 'closed' (accepted, then closed with nothing said) or what the port answered to a line. */
function knock(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let text = '';
    s.setTimeout(3_000, () => s.destroy());
    s.on('connect', () => s.write('knock\n'));
    s.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) s.destroy();
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'closed'));
    s.on('close', () => resolve(text || 'closed'));
  });
}

function selfSigned(cn: string): { certPem: string; keyPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'stratus-gw-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${cn}`, '-keyout', join(dir, 'k'), '-out', join(dir, 'c')], {
      stdio: 'pipe',
    });
    return { certPem: readFileSync(join(dir, 'c'), 'utf8'), keyPem: readFileSync(join(dir, 'k'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The subject CN the TLS port presents, and the answer to a line sent over it. */
function tlsKnock(port: number): Promise<{ cn: string; reply: string }> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    let reply = '';
    s.setTimeout(3_000, () => s.destroy(new Error('timeout')));
    s.on('secureConnect', () => s.write('knock\n'));
    s.on('data', (d) => {
      reply += d;
      if (reply.includes('\n')) {
        resolve({ cn: String(s.getPeerCertificate().subject?.CN), reply });
        s.destroy();
      }
    });
    s.on('error', reject);
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('GatewayRouter', () => {
  let dir: string;
  let range: { from: number; to: number };
  let router: GatewayRouter;
  let target: Server;
  let targetPort: number;
  /** Answers a line with `<name>: <line>`. */
  const named: Server[] = [];
  /** The target's side of each connection, by the edge's port on it. */
  const targetSockets = new Map<number, Socket>();
  /** What the router logged. */
  const logged: string[] = [];
  const log: EdgeLog = (level, msg, extra) => logged.push(`${level} ${msg} ${JSON.stringify(extra)}`);

  const route = (port: number, targetPort_: number, tls: RouteSpec['tls'] = null): RouteSpec => ({ id: randomUUID(), port, targetIp: '127.0.0.1', targetPort: targetPort_, tls });

  /** A target that answers every line with its name. */
  async function namedTarget(name: string): Promise<number> {
    const server = createServer((s) => s.on('data', (d: Buffer) => s.write(`${name}: ${d.toString()}`)));
    named.push(server);
    return listen(server);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stratus-gateway-'));
    // Answers only once the client has finished sending (its FIN): the hash
    // and length of all it received, then the same bytes reversed, then FIN.
    target = createServer({ allowHalfOpen: true }, (s: Socket) => {
      targetSockets.set(s.remotePort!, s);
      // A client that went away early (the keep-alive spec's) makes the late answer fail: not this fixture's concern.
      s.on('error', () => undefined);
      const parts: Buffer[] = [];
      s.on('data', (d) => parts.push(d));
      s.on('end', () => {
        const got = Buffer.concat(parts);
        // Late on purpose: the client's FIN must not have ended the exchange.
        setTimeout(() => s.end(Buffer.concat([Buffer.from(`${sha256(got)} ${got.length}\n`), Buffer.from(got).reverse()])), 50);
      });
    });
    targetPort = await listen(target);
    range = await freePortRange(8);
    router = new GatewayRouter({ dir, host: '127.0.0.1', range, threads: 2, log });
  });

  afterAll(async () => {
    await router?.close();
    target.close();
    for (const s of named) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the whole range from the start, refusing connections on every port without a route', async () => {
    expect(await router.apply([])).toEqual({});
    expect(router.status).toBe('ok');
    expect(router.portsTaken).toEqual([]);
    for (let port = range.from; port <= range.to; port++) {
      expect(await knock(port)).toBe('refused');
    }
  });

  it('a process that binds a paused port keeps it; the route on it serves once that process has let go', async () => {
    // A paused listener is not listening: a bind with SO_REUSEADDR (Node's, and most servers') succeeds.
    const port = range.from + 6;
    const accepted: Socket[] = [];
    const squatter = createServer((s) => accepted.push(s.end('squatter\n')));
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    const echo = await namedTarget('after-squatter');
    const wanted = route(port, echo);
    try {
      expect(await router.apply([wanted])).toEqual({ [port]: PORT_BUSY });
      expect(await knock(port)).toBe('squatter\n');
    } finally {
      squatter.close(); // the port is free at once
      for (const s of accepted) s.destroy();
    }
    expect(await router.apply([wanted])).toEqual({ [port]: 'ok' });
    expect(await knock(port)).toBe('after-squatter: knock\n');
    expect(await router.apply([])).toEqual({});
  });

  it('carries the answer that follows the client half-closing its side', async () => {
    const port = range.from;
    expect(await router.apply([route(port, targetPort)])).toEqual({ [port]: 'ok' });
    const reply = await exchange(port, Buffer.from('hello'));
    expect(reply.toString()).toBe(`${sha256(Buffer.from('hello'))} 5\nolleh`);
  });

  it('carries several megabytes each way intact', async () => {
    const payload = randomBytes(6 * 1024 * 1024);
    const reply = await exchange(range.from, payload);
    const newline = reply.indexOf(10);
    expect(reply.subarray(0, newline).toString()).toBe(`${sha256(payload)} ${payload.length}`);
    expect(sha256(reply.subarray(newline + 1))).toBe(sha256(Buffer.from(payload).reverse()));
  });

  it('stops reading from the client while the target does not read, and loses nothing', async () => {
    let held: Socket | undefined;
    const slow = createServer({ allowHalfOpen: true }, (s: Socket) => {
      held = s;
      s.pause();
      const parts: Buffer[] = [];
      s.on('data', (d) => parts.push(d));
      s.on('end', () => s.end(`${sha256(Buffer.concat(parts))} ${Buffer.concat(parts).length}\n`));
    });
    const port = range.from + 1;
    const slowPort = await listen(slow);
    const current = route(port, slowPort);
    expect(await router.apply([route(range.from, targetPort), current])).toMatchObject({ [port]: 'ok' });
    try {
      const payload = randomBytes(48 * 1024 * 1024);
      const client = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
      const parts: Buffer[] = [];
      client.on('data', (d) => parts.push(d));
      client.end(payload);
      await new Promise((r) => setTimeout(r, 500));
      // The gateway held back: what the target has not taken is still waiting at the client.
      expect(held).toBeDefined();
      expect(client.writableLength).toBeGreaterThan(0);
      held!.resume();
      await once(client, 'end');
      client.destroy();
      expect(Buffer.concat(parts).toString()).toBe(`${sha256(payload)} ${payload.length}\n`);
    } finally {
      slow.close();
    }
  });

  it('keeps TCP keep-alive armed on both of its sockets, so a vanished peer is found', async () => {
    const client = connect({ host: '127.0.0.1', port: range.from });
    await once(client, 'connect');
    client.write('x'); // the route is up once the target sees a byte
    let edgePort: number | undefined;
    await waitFor(
      'the target to see the byte',
      () => {
        edgePort = [...targetSockets.entries()].find(([, s]) => s.bytesRead > 0 && !s.readableEnded)?.[0];
        return edgePort !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    try {
      expect(keepAliveArmed(range.from, client.localPort!)).toBe(true); // the gateway's socket to the client
      expect(keepAliveArmed(edgePort!, targetPort)).toBe(true); // the gateway's socket to the target
      expect(keepAliveArmed(client.localPort!, range.from)).toBe(false); // the test's own client: the check can tell
    } finally {
      client.destroy();
    }
  });

  it('closes the client connection when the target refuses', async () => {
    const gone = createServer();
    const port = await listen(gone);
    gone.close();
    expect(await router.apply([route(range.from + 2, port)])).toEqual({ [range.from + 2]: 'ok' });
    expect(await knock(range.from + 2)).toBe('closed');
  });

  it('terminates TLS with each port its own certificate, and switches a port between plain and TLS', async () => {
    const [a, b] = [selfSigned('a.gateway.test'), selfSigned('b.gateway.test')];
    const echo = await namedTarget('tls-target');
    const routes = [route(range.from + 3, echo, a), route(range.from + 4, echo, b)];
    expect(await router.apply(routes)).toEqual({ [range.from + 3]: 'ok', [range.from + 4]: 'ok' });
    expect(await tlsKnock(range.from + 3)).toEqual({ cn: 'a.gateway.test', reply: 'tls-target: knock\n' });
    expect(await tlsKnock(range.from + 4)).toEqual({ cn: 'b.gateway.test', reply: 'tls-target: knock\n' });
    // Plain on a TLS port is not answered in the clear.
    expect(await knock(range.from + 3)).not.toContain('tls-target');

    // The same port as a plain route, then TLS again.
    expect(await router.apply([route(range.from + 3, echo)])).toEqual({ [range.from + 3]: 'ok' });
    expect(await knock(range.from + 3)).toBe('tls-target: knock\n');
    expect(await knock(range.from + 4)).toBe('refused');
    expect(await router.apply([route(range.from + 3, echo, b)])).toEqual({ [range.from + 3]: 'ok' });
    expect(await tlsKnock(range.from + 3)).toEqual({ cn: 'b.gateway.test', reply: 'tls-target: knock\n' });
  });

  it('a certificate HAProxy refuses fails its own route only: the next TLS route still loads', async () => {
    const [a, b] = [selfSigned('a.gateway.test'), selfSigned('b.gateway.test')];
    const echo = await namedTarget('after-refusal');
    // A's certificate with B's key: HAProxy refuses the commit (and would keep the transaction open).
    const results = await router.apply([route(range.from + 3, echo, { certPem: a.certPem, keyPem: b.keyPem }), route(range.from + 4, echo, b)]);
    expect(results[range.from + 3]).toMatch(/^haproxy: .*inconsistencies between private key and certificate/s);
    expect(results[range.from + 4]).toBe('ok');
    expect(await tlsKnock(range.from + 4)).toEqual({ cn: 'b.gateway.test', reply: 'after-refusal: knock\n' });
    expect(await knock(range.from + 3)).toBe('refused');
    // Only certificate blocks reach HAProxy: a key inside the certificate text does not take the route's key's place.
    expect(await router.apply([route(range.from + 3, echo, { certPem: `${a.certPem}\n${b.keyPem}`, keyPem: a.keyPem })])).toEqual({ [range.from + 3]: 'ok' });
    expect(await tlsKnock(range.from + 3)).toEqual({ cn: 'a.gateway.test', reply: 'after-refusal: knock\n' });
    expect(await router.apply([])).toEqual({});
  });

  /**
   * Connects while `first` serves the port, applies `next`, then does the TLS
   * handshake (with `first`'s certificate, if the port still shows it) and
   * sends a secret: what the client hears back.
   */
  async function handshakeAcrossChange(port: number, first: RouteSpec, next: RouteSpec): Promise<string> {
    expect(await router.apply([first])).toEqual({ [port]: 'ok' });
    const raw = connect({ host: '127.0.0.1', port });
    await once(raw, 'connect');
    expect(await router.apply([next])).toEqual({ [port]: 'ok' });
    return new Promise<string>((resolve) => {
      const tls = tlsConnect({ socket: raw, rejectUnauthorized: false });
      let text = '';
      tls.on('secureConnect', () => tls.write('secret for one\n'));
      tls.on('data', (d) => (text += String(d)));
      tls.on('error', () => undefined);
      tls.on('close', () => resolve(text));
      tls.setTimeout(3_000, () => tls.destroy());
    });
  }

  it('a TLS connection still in its handshake when its route goes is never handed to the next route on the port', async () => {
    const [one, two] = [await namedTarget('one'), await namedTarget('two')];
    const port = range.from + 1;
    expect(await handshakeAcrossChange(port, route(port, one, selfSigned('a.gateway.test')), route(port, two))).toBe('');
    expect(await knock(port)).toBe('two: knock\n');
    expect(await router.apply([])).toEqual({});
  });

  it('a TLS connection still in its handshake is dropped when its port stops presenting that certificate, whatever the route id', async () => {
    const [one, two] = [await namedTarget('one'), await namedTarget('two')];
    const port = range.from + 1;
    const first = route(port, one, selfSigned('a.gateway.test'));
    // The same id, another target, plain: what the accept-time note sees when the thread
    // holding the connection runs it only after the route changed.
    expect(await handshakeAcrossChange(port, first, { ...first, targetPort: two, tls: null })).toBe('');
    expect(await knock(port)).toBe('two: knock\n');
    expect(await router.apply([])).toEqual({});
  });

  it('a route whose take-down failed is taken down at the next apply', async () => {
    const echo = await namedTarget('lingering');
    const port = range.from + 2;
    expect(await router.apply([route(port, echo)])).toEqual({ [port]: 'ok' });
    const socket = join(dir, 'gateway.sock');
    renameSync(socket, `${socket}.away`);
    try {
      expect(await router.apply([])).toEqual({});
    } finally {
      renameSync(`${socket}.away`, socket);
    }
    expect(await knock(port)).toBe('lingering: knock\n');
    expect(logged.pop()).toMatch(/^error cannot take a gateway route down .*"port":\d+/);
    expect(await router.apply([])).toEqual({});
    expect(await knock(port)).toBe('refused');
  });

  it('a route gone refuses new connections and cuts its open ones; a new route on the port sends new ones to its own target', async () => {
    const quietSince = logged.length;
    const [one, two] = [await namedTarget('one'), await namedTarget('two')];
    const port = range.from + 5;
    const first = route(port, one);
    const other = route(range.from, targetPort);
    expect(await router.apply([first, other])).toMatchObject({ [port]: 'ok' });
    const open = connect({ host: '127.0.0.1', port });
    open.write('hi\n');
    const [said] = await once(open, 'data');
    expect(String(said)).toBe('one: hi\n');
    const otherOpen = connect({ host: '127.0.0.1', port: range.from, allowHalfOpen: true });
    await once(otherOpen, 'connect');

    expect(await router.apply([other])).toEqual({ [range.from]: 'ok' });
    await waitFor('the open connection to be cut', () => open.closed || open.readableEnded, { timeoutMs: 30_000, intervalMs: 10 });
    expect(await knock(port)).toBe('refused');
    // Another route's connection was not touched.
    expect(otherOpen.closed || otherOpen.readableEnded).toBe(false);
    otherOpen.destroy();

    expect(await router.apply([other, route(port, two)])).toMatchObject({ [port]: 'ok' });
    expect(await knock(port)).toBe('two: knock\n');
    // What HAProxy says about routes being set up and down is not news for the log.
    expect(logged.slice(quietSince)).toEqual([]);
  });

  it('a route that changes only its target sends new connections there and keeps its open ones where they were', async () => {
    const [one, two] = [await namedTarget('one'), await namedTarget('two')];
    const port = range.from + 7;
    const first = route(port, one);
    expect(await router.apply([first])).toEqual({ [port]: 'ok' });
    const open = connect({ host: '127.0.0.1', port });
    open.on('error', () => undefined);
    open.write('hi\n');
    expect(String((await once(open, 'data'))[0])).toBe('one: hi\n');

    expect(await router.apply([{ ...first, targetPort: two }])).toEqual({ [port]: 'ok' });
    expect(await knock(port)).toBe('two: knock\n');
    // Not cut: a take-down would have closed it.
    open.write('still\n');
    expect(String((await once(open, 'data'))[0])).toBe('one: still\n');
    open.destroy();
    expect(await router.apply([])).toEqual({});
  });

  it('leaves out a port something else held when it started, and says so for a route on it', async () => {
    const taken = range.to;
    await router.close();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(taken, '127.0.0.1', r));
    const otherDir = mkdtempSync(join(tmpdir(), 'stratus-gateway-'));
    const other = new GatewayRouter({ dir: otherDir, host: '127.0.0.1', range: await freePortRange(3), threads: 1 });
    try {
      // Started again on the same range: the squatter's port is left out, the others held again.
      router = new GatewayRouter({ dir, host: '127.0.0.1', range, threads: 2, log });
      const echo = await namedTarget('after-restart');
      expect(await router.apply([route(taken, echo), route(range.from, echo), route(range.to + 1, echo)])).toEqual({
        [taken]: PORT_TAKEN,
        [range.from]: 'ok',
        [range.to + 1]: `the port is outside the edge's GATEWAY_PORT_RANGE (${range.from}-${range.to})`,
      });
      expect(router.portsTaken).toEqual([taken]);
      expect(await knock(range.from)).toBe('after-restart: knock\n');
      // The port is still the squatter's.
      expect(await knock(taken)).toBe('closed');
      // Two routers hold two ranges side by side.
      expect(await other.apply([])).toEqual({});
      expect(other.status).toBe('ok');
    } finally {
      squatter.close();
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('HAProxy killed under it: started again with the same routes', async () => {
    const echo = await namedTarget('revived');
    expect(await router.apply([route(range.from, echo)])).toEqual({ [range.from]: 'ok' });
    const pid = Number(readFileSync(join(dir, 'gateway.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await waitFor('the route to serve again', async () => (await knock(range.from)) === 'revived: knock\n', { timeoutMs: 20_000, intervalMs: 100 });
    expect(Number(readFileSync(join(dir, 'gateway.pid'), 'utf8'))).not.toBe(pid);
  });
});
