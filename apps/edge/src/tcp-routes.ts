import { createServer, Server, Socket, SocketConstructorOpts, connect } from 'node:net';
import { createServer as createTlsServer, Server as TlsServer } from 'node:tls';
import { RouteSpec, TcpHandle } from './edge.messages';
import { KEEPALIVE } from './keepalive';
import { Relay } from './relay';

interface Listener {
  server: Server;
  /** For a TLS route: terminates TLS on the sockets the listener (or another worker's) accepted. */
  tls: TlsServer | null;
  spec: RouteSpec;
  /** Whether it is bound; otherwise the error it failed with. */
  state: 'binding' | 'ok' | string;
  sockets: Set<Socket>;
  /** When one of its connections last closed in this process (ms since the epoch). */
  lastClose: number;
}

/**
 * A route one of whose connections closed this recently is churning: its
 * load evens out by itself within moments, and passing a connection on costs
 * more than relaying it (four IPC messages and two handle transfers).
 */
const CHURN_MS = 250;

/**
 * Takes the handle out of a socket that net.Server accepted (paused, so
 * unread) and lets that socket go: the server's count of connections drops
 * as the socket closes, and the handle lives on, open, for whoever wraps it.
 */
export function detachHandle(socket: Socket): TcpHandle {
  const s = socket as unknown as { _handle: TcpHandle | null };
  const handle = s._handle!;
  s._handle = null;
  socket.destroy();
  return handle;
}

/** Where a worker's new connections may go instead (ConnectionBalancer and the IPC channel). */
export interface Handoffs {
  /** The worker to pass a new connection to, given this worker's open connections; null to keep it. */
  pick(open: number): number | null;
  /** Sends the unread socket to that worker; false when it could not be sent (it is then kept). */
  pass(port: number, socket: Socket, to: number): boolean;
  /** This worker's open connections changed. */
  changed(open: number): void;
}

/**
 * The gateway's TCP routes in one process: a listener per port that pipes
 * each connection to targetIp:targetPort (terminating TLS first when the
 * route has a certificate). Applying a new set of routes binds what is new,
 * retargets what changed in place (new connections follow), and closes what
 * is gone, dropping its open connections. With `handoffs`, a connection
 * may be passed, unread, to another worker's TcpRoutes (`adopt`).
 */
export class TcpRoutes {
  private readonly listeners = new Map<number, Listener>();
  private open = 0;

  constructor(private readonly handoffs?: Handoffs) {}

  async apply(host: string, routes: RouteSpec[]): Promise<Record<number, string>> {
    const wanted = new Map(routes.map((r) => [r.port, r]));
    for (const [port, l] of this.listeners) {
      const next = wanted.get(port);
      if (!next || !sameListener(l.spec, next) || l.state !== 'ok') this.close(port);
    }
    await Promise.all(
      routes.map(async (spec) => {
        const existing = this.listeners.get(spec.port);
        if (existing) {
          existing.spec = spec;
          return;
        }
        await this.listen(host, spec);
      }),
    );
    return Object.fromEntries([...this.listeners].map(([port, l]) => [port, l.state]));
  }

  closeAll(): void {
    for (const port of [...this.listeners.keys()]) this.close(port);
  }

  /** A connection another worker accepted on `port` and passed on unread; dropped when this worker no longer has the route. */
  adopt(port: number, handle: TcpHandle): void {
    const l = this.listeners.get(port);
    if (l) this.take(l, handle);
    else handle.close();
  }

  private listen(host: string, spec: RouteSpec): Promise<void> {
    // Half-open allowed: a client that finishes sending (FIN) still gets the answer that follows.
    const tls = spec.tls ? createTlsServer({ cert: spec.tls.certPem, key: spec.tls.keyPem, allowHalfOpen: true }, (s) => this.pipeTls(l, s)) : null;
    // Unread until kept or passed on: a passed socket must not have lost bytes to this process.
    const server = createServer({ noDelay: true, allowHalfOpen: true, pauseOnConnect: true, ...KEEPALIVE }, (s) => this.accepted(l, s));
    const l: Listener = { server, tls, spec, state: 'binding', sockets: new Set(), lastClose: 0 };
    this.listeners.set(spec.port, l);
    return new Promise((resolve) => {
      l.server.once('error', (err: NodeJS.ErrnoException) => {
        l.state = `${err.code ?? 'error'}: ${err.message}`;
        resolve();
      });
      l.server.listen({ port: spec.port, host, backlog: 2048 }, () => {
        l.state = 'ok';
        resolve();
      });
    });
  }

  private accepted(l: Listener, socket: Socket): void {
    const to = this.handoffs && Date.now() - l.lastClose > CHURN_MS ? this.handoffs.pick(this.open) : null;
    if (to !== null && this.handoffs!.pass(l.spec.port, socket, to)) return;
    this.take(l, detachHandle(socket));
  }

  /** This worker serves it: counted from here (a TLS handshake included) until the socket closes. */
  private take(l: Listener, handle: TcpHandle): void {
    this.count(+1);
    const closed = () => {
      l.lastClose = Date.now();
      this.count(-1);
    };
    if (l.tls) {
      const socket = new Socket({ handle, readable: true, writable: true, allowHalfOpen: true } as SocketConstructorOpts);
      socket.once('close', closed);
      l.tls.emit('connection', socket);
      return;
    }
    const toTarget = new Relay();
    const toClient = new Relay();
    const client = new Socket({ handle, readable: true, writable: true, allowHalfOpen: true, onread: toTarget } as SocketConstructorOpts);
    client.once('close', closed);
    const upstream = this.connectTarget(l, toClient);
    this.join(l, client, upstream, [toTarget, toClient]);
    toTarget.between(client, upstream);
    toClient.between(upstream, client);
  }

  /** A connection to the route's target; `relay` reads it when given. */
  private connectTarget(l: Listener, relay?: Relay): Socket {
    const { targetIp, targetPort } = l.spec;
    return connect({ host: targetIp, port: targetPort, noDelay: true, allowHalfOpen: true, ...KEEPALIVE, ...(relay && { onread: relay }) });
  }

  /** A TLS route's connection, once its handshake is under way: the decrypted side is a stream of TLS's own, so it is piped. */
  private pipeTls(l: Listener, client: Socket): void {
    const upstream = this.connectTarget(l);
    this.join(l, client, upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /**
   * The pair's lifetime; the caller starts the relaying (relays or pipes),
   * each direction ending on its own: a FIN from one side is passed on and
   * the other direction keeps flowing. A socket closes once both of its
   * directions are done, or at once on an error; either tears down the pair.
   */
  private join(l: Listener, client: Socket, upstream: Socket, relays: Relay[] = []): void {
    // No setNoDelay here: the listener set TCP_NODELAY on the accepted socket (`noDelay`), a passed one's included.
    l.sockets.add(client);
    const done = () => {
      if (!l.sockets.delete(client)) return;
      client.destroy();
      upstream.destroy();
      for (const r of relays) r.release();
    };
    for (const s of [client, upstream]) {
      s.on('error', done);
      s.on('close', done);
    }
  }

  private count(delta: number): void {
    this.open += delta;
    this.handoffs?.changed(this.open);
  }

  private close(port: number): void {
    const l = this.listeners.get(port);
    if (!l) return;
    this.listeners.delete(port);
    l.server.close();
    for (const s of l.sockets) s.destroy();
  }
}

/** Same listener: same port and the same TLS setup (a target change is applied in place). */
function sameListener(a: RouteSpec, b: RouteSpec): boolean {
  return (a.tls?.certPem ?? null) === (b.tls?.certPem ?? null) && (a.tls?.keyPem ?? null) === (b.tls?.keyPem ?? null);
}
