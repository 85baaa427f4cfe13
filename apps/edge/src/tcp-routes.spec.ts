import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { keepAliveArmed } from '@stratus/testing';
import { detachHandle, TcpRoutes } from './tcp-routes';

/** A gateway route end to end on loopback: a client, the route's listener, and a target on raw sockets. */

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe);
  probe.close();
  await once(probe, 'close');
  return port;
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

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('TcpRoutes', () => {
  const routes = new TcpRoutes();
  let target: Server;
  let targetPort: number;
  let routePort: number;

  /** The target's side of each connection, by the edge's port on it. */
  const targetSockets = new Map<number, Socket>();

  beforeAll(async () => {
    // Answers only once the client has finished sending (its FIN): the hash
    // and length of all it received, then the same bytes reversed, then FIN.
    target = createServer({ allowHalfOpen: true }, (s: Socket) => {
      targetSockets.set(s.remotePort!, s);
      const parts: Buffer[] = [];
      s.on('data', (d) => parts.push(d));
      s.on('end', () => {
        const got = Buffer.concat(parts);
        // Late on purpose: the client's FIN must not have ended the exchange.
        setTimeout(() => s.end(Buffer.concat([Buffer.from(`${sha256(got)} ${got.length}\n`), Buffer.from(got).reverse()])), 50);
      });
    });
    targetPort = await listen(target);
    routePort = await freePort();
    const state = await routes.apply('127.0.0.1', [{ port: routePort, targetIp: '127.0.0.1', targetPort, tls: null }]);
    expect(state[routePort]).toBe('ok');
  });

  afterAll(() => {
    routes.closeAll();
    target.close();
  });

  it('carries the answer that follows the client half-closing its side', async () => {
    const reply = await exchange(routePort, Buffer.from('hello'));
    expect(reply.toString()).toBe(`${sha256(Buffer.from('hello'))} 5\nolleh`);
  });

  it('carries several megabytes each way intact', async () => {
    const payload = randomBytes(6 * 1024 * 1024);
    const reply = await exchange(routePort, payload);
    const newline = reply.indexOf(10);
    expect(reply.subarray(0, newline).toString()).toBe(`${sha256(payload)} ${payload.length}`);
    expect(sha256(reply.subarray(newline + 1))).toBe(sha256(Buffer.from(payload).reverse()));
  });

  it('stops reading from the client while the target does not read, and loses nothing', async () => {
    // A target that reads nothing until told to, then answers with the hash of all it got.
    let held: Socket | undefined;
    const slow = createServer({ allowHalfOpen: true }, (s: Socket) => {
      held = s;
      s.pause();
      const parts: Buffer[] = [];
      s.on('data', (d) => parts.push(d));
      s.on('end', () => s.end(`${sha256(Buffer.concat(parts))} ${Buffer.concat(parts).length}\n`));
    });
    const slowPort = await listen(slow);
    const other = new TcpRoutes();
    const port = await freePort();
    await other.apply('127.0.0.1', [{ port, targetIp: '127.0.0.1', targetPort: slowPort, tls: null }]);
    try {
      // More than the kernel's buffers along the way hold (a few MB per socket on loopback).
      const payload = randomBytes(48 * 1024 * 1024);
      const client = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
      const parts: Buffer[] = [];
      client.on('data', (d) => parts.push(d));
      client.end(payload);
      await new Promise((r) => setTimeout(r, 500));
      // The edge held back: what the target has not taken is still waiting at the client.
      expect(held).toBeDefined();
      expect(client.writableLength).toBeGreaterThan(0);
      held!.resume();
      await once(client, 'end');
      client.destroy();
      // Every byte arrived once and in order: a read never overwrote a chunk still being written.
      expect(Buffer.concat(parts).toString()).toBe(`${sha256(payload)} ${payload.length}\n`);
    } finally {
      other.closeAll();
      slow.close();
    }
  });

  it('keeps TCP keep-alive armed on both sockets of a relayed connection, so a vanished peer is found', async () => {
    const client = connect({ host: '127.0.0.1', port: routePort });
    await once(client, 'connect');
    client.write('x'); // the relay is up once the target sees a byte
    let edgePort: number | undefined;
    for (let i = 0; i < 100 && edgePort === undefined; i++) {
      edgePort = [...targetSockets.entries()].find(([, s]) => s.bytesRead > 0 && !s.readableEnded)?.[0];
      if (edgePort === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    try {
      expect(keepAliveArmed(routePort, client.localPort!)).toBe(true); // the edge's socket to the client
      expect(keepAliveArmed(edgePort!, targetPort)).toBe(true); // the edge's socket to the target
      expect(keepAliveArmed(client.localPort!, routePort)).toBe(false); // the test's own client: the check can tell
    } finally {
      client.destroy();
    }
  });

  it('refuses connections once the route is gone', async () => {
    const other = new TcpRoutes();
    const port = await freePort();
    await other.apply('127.0.0.1', [{ port, targetIp: '127.0.0.1', targetPort, tls: null }]);
    await other.apply('127.0.0.1', []);
    const socket = connect({ host: '127.0.0.1', port });
    const [err] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
  });

  it('closes the client connection when the target refuses', async () => {
    const other = new TcpRoutes();
    const port = await freePort();
    await other.apply('127.0.0.1', [{ port, targetIp: '127.0.0.1', targetPort: await freePort(), tls: null }]);
    try {
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => undefined);
      socket.resume();
      await once(socket, 'close');
      expect(socket.bytesRead).toBe(0);
    } finally {
      other.closeAll();
    }
  });

  describe('passing connections on (Handoffs)', () => {
    /** Two workers' TcpRoutes in one process: `pass` hands the unread socket straight to the other's `adopt`. */
    function pair(pickFirst: (open: number) => number | null) {
      const calls = { picks: 0, passed: 0, counts: [] as number[] };
      let second: TcpRoutes;
      const first = new TcpRoutes({
        pick: (open) => {
          calls.picks++;
          return pickFirst(open);
        },
        pass: (port, socket) => {
          calls.passed++;
          // Later, as over IPC: bytes the client sent meanwhile must still be there for the adopter.
          const handle = detachHandle(socket);
          setTimeout(() => second.adopt(port, handle), 30);
          return true;
        },
        changed: (open) => calls.counts.push(open),
      });
      second = new TcpRoutes();
      return { first, second, calls };
    }

    it('a passed connection is served by the worker that adopts it, from its first byte', async () => {
      const { first, second, calls } = pair(() => 2);
      const port = await freePort();
      const spec = [{ port, targetIp: '127.0.0.1', targetPort, tls: null }];
      await first.apply('127.0.0.1', spec);
      // In one process the second cannot bind the port too (cluster workers share one socket); it knows the route all the same.
      expect((await second.apply('127.0.0.1', spec))[port]).toMatch(/^EADDRINUSE/);
      try {
        const reply = await exchange(port, Buffer.from('passed'));
        expect(reply.toString()).toBe(`${sha256(Buffer.from('passed'))} 6\ndessap`);
        expect(calls).toMatchObject({ picks: 1, passed: 1 });
        // The first worker never relayed it: its count never moved.
        expect(calls.counts).toEqual([]);
      } finally {
        first.closeAll();
        second.closeAll();
      }
    });

    it('a route whose connections come and go keeps what it accepts, without asking', async () => {
      const { first, calls } = pair(() => null);
      const port = await freePort();
      await first.apply('127.0.0.1', [{ port, targetIp: '127.0.0.1', targetPort, tls: null }]);
      try {
        await exchange(port, Buffer.from('one'));
        expect(calls.picks).toBe(1);
        expect(calls.counts).toEqual([1, 0]);
        // Right after a close on this route: not asked.
        await exchange(port, Buffer.from('two'));
        expect(calls.picks).toBe(1);
        expect(calls.counts).toEqual([1, 0, 1, 0]);
      } finally {
        first.closeAll();
      }
    });
  });
});
