import cluster from 'node:cluster';

/**
 * The edge (data plane): gateway TCP routes and host-based HTTP routing for
 * proxy hosts. A primary process follows PostgreSQL; worker processes (Node
 * cluster, each accepting on the shared sockets) carry the traffic. It needs
 * neither the api nor the worker to keep serving.
 */
if (cluster.isPrimary) {
  // Loaded only in the primary: the workers stay small.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('@stratus/core') as typeof import('@stratus/core');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EdgePrimary } = require('./edge.primary') as typeof import('./edge.primary');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
  new EdgePrimary(config).start().catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./edge.worker') as typeof import('./edge.worker')).runEdgeWorker();
}
