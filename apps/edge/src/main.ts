import { loadConfig } from '@stratus/core';
import { EdgeService } from './edge.service';

/**
 * The edge (data plane): gateway TCP routes and host-based HTTP routing for
 * proxy hosts, each served by an HAProxy process this one runs and keeps in
 * step with PostgreSQL. It needs neither the api nor the worker to keep
 * serving.
 */
let config;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
new EdgeService(config).start().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
