import { createServer, Server, Socket, connect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { RouteSpec } from './edge.messages';
import { KEEPALIVE } from './keepalive';

interface Listener {
  server: Server;
  spec: RouteSpec;
  /** Whether it is bound; otherwise the error it failed with. */
  state: 'binding' | 'ok' | string;
  sockets: Set<Socket>;
}

/**
 * The gateway's TCP routes in one process: a listener per port that pipes
 * each connection to targetIp:targetPort (terminating TLS first when the
 * route has a certificate). Applying a new set of routes binds what is new,
 * retargets what changed in place (new connections follow), and closes what
 * is gone, dropping its open connections.
 */
export class TcpRoutes {
  private readonly listeners = new Map<number, Listener>();

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
        await this.open(host, spec);
      }),
    );
    return Object.fromEntries([...this.listeners].map(([port, l]) => [port, l.state]));
  }

  closeAll(): void {
    for (const port of [...this.listeners.keys()]) this.close(port);
  }

  private open(host: string, spec: RouteSpec): Promise<void> {
    const l: Listener = { server: undefined as unknown as Server, spec, state: 'binding', sockets: new Set() };
    const onConnection = (client: Socket) => this.pipe(l, client);
    // Half-open allowed: a client that finishes sending (FIN) still gets the answer that follows.
    l.server = spec.tls
      ? createTlsServer({ cert: spec.tls.certPem, key: spec.tls.keyPem, allowHalfOpen: true, ...KEEPALIVE }, onConnection)
      : createServer({ noDelay: true, allowHalfOpen: true, ...KEEPALIVE }, onConnection);
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

  /**
   * Each direction ends on its own: a FIN from one side is passed on (by
   * `pipe`) and the other direction keeps flowing. A socket closes once both
   * of its directions are done, or at once on an error; either tears down the pair.
   */
  private pipe(l: Listener, client: Socket): void {
    const { targetIp, targetPort } = l.spec;
    const upstream = connect({ host: targetIp, port: targetPort, noDelay: true, allowHalfOpen: true, ...KEEPALIVE });
    client.setNoDelay(true);
    l.sockets.add(client);
    const done = () => {
      l.sockets.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', done);
    upstream.on('error', done);
    client.on('close', done);
    upstream.on('close', done);
    client.pipe(upstream);
    upstream.pipe(client);
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
