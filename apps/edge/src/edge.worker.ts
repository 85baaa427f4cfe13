import cluster from 'node:cluster';
import { ConnectionBalancer } from './connection-balancer';
import { DesiredState, Handoff, LOAD_REPORT_MS, LoadView, TcpHandle, WorkerLoad, WorkerStatus } from './edge.messages';
import { Handoffs, TcpRoutes } from './tcp-routes';

/**
 * One accepting process of the edge: holds the gateway routes' listeners
 * the primary asks for and reports which are bound. Knows nothing of
 * PostgreSQL. (Proxy hosts are HAProxy's, which the primary runs.)
 */
export function runEdgeWorker(): void {
  const routes = new TcpRoutes(handoffsOverIpc());
  let queue: Promise<void> = Promise.resolve();

  process.on('message', (msg: DesiredState | Handoff, handle?: TcpHandle) => {
    if (msg?.type === 'handoff') {
      // The bare TCP handle (see `pass`): wrapped and read here, where it is served.
      if (handle) routes.adopt(msg.port, handle);
      return;
    }
    if (msg?.type !== 'state') return;
    // Applied in order: a later state never races an earlier one.
    queue = queue.then(async () => {
      const status: WorkerStatus = { type: 'status', version: msg.version, routes: await routes.apply(msg.gatewayHost, msg.routes) };
      process.send?.(status);
    });
  });
  // The primary is gone: so are we (listeners close with the process).
  process.on('disconnect', () => {
    routes.closeAll();
    process.exit(0);
  });
  process.on('SIGTERM', () => undefined);
  process.on('SIGINT', () => undefined);
}

/** Balancing between the workers: counts go to the primary, views come back, passed sockets travel through it. */
function handoffsOverIpc(): Handoffs {
  const balancer = new ConnectionBalancer(cluster.worker!.id);
  let open = 0;
  let reported = 0;
  let timer: NodeJS.Timeout | null = null;
  process.on('message', (msg: LoadView) => {
    if (msg?.type === 'loads') balancer.update(msg.connections);
  });
  return {
    pick: (count) => balancer.pick(count),
    pass: (port, socket, to) => {
      if (!process.connected) return false;
      const handoff: Handoff = { type: 'handoff', port, to };
      // The bare TCP handle, not the socket: the primary would wrap a socket in
      // one that starts reading, and the bytes it read would be lost on the way.
      // Ours was never read (pauseOnConnect); it is closed once sent.
      process.send!(handoff, (socket as unknown as { _handle: never })._handle, {}, () => socket.destroy());
      return true;
    },
    changed: (count) => {
      open = count;
      timer ??= setTimeout(() => {
        timer = null;
        if (open === reported || !process.connected) return;
        reported = open;
        const load: WorkerLoad = { type: 'load', connections: open };
        process.send?.(load);
      }, LOAD_REPORT_MS);
    },
  };
}
