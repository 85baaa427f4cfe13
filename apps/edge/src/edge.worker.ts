import { DesiredState, WorkerStatus } from './edge.messages';
import { HostRouter } from './host-router';
import { TcpRoutes } from './tcp-routes';

/**
 * One accepting process of the edge: holds the listeners the primary asks
 * for and reports which are bound. Knows nothing of PostgreSQL.
 */
export function runEdgeWorker(): void {
  const routes = new TcpRoutes();
  const router = new HostRouter();
  let queue: Promise<void> = Promise.resolve();

  process.on('message', (msg: DesiredState) => {
    if (msg?.type !== 'state') return;
    // Applied in order: a later state never races an earlier one.
    queue = queue.then(async () => {
      router.setHosts(msg.hosts);
      const [routeStates, http] = await Promise.all([routes.apply(msg.gatewayHost, msg.routes), router.listen(msg.http)]);
      const status: WorkerStatus = { type: 'status', version: msg.version, routes: routeStates, http };
      process.send?.(status);
    });
  });
  // The primary is gone: so are we (listeners close with the process).
  process.on('disconnect', () => {
    routes.closeAll();
    router.close();
    process.exit(0);
  });
  process.on('SIGTERM', () => undefined);
  process.on('SIGINT', () => undefined);
}
