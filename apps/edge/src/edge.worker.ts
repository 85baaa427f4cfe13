import { DesiredState, WorkerStatus } from './edge.messages';
import { TcpRoutes } from './tcp-routes';

/**
 * One accepting process of the edge: holds the gateway routes' listeners
 * the primary asks for and reports which are bound. Knows nothing of
 * PostgreSQL. (Proxy hosts are HAProxy's, which the primary runs.)
 */
export function runEdgeWorker(): void {
  const routes = new TcpRoutes();
  let queue: Promise<void> = Promise.resolve();

  process.on('message', (msg: DesiredState) => {
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
