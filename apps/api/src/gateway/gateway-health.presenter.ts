import { AppConfig, EdgeNode, GatewayRoute } from '@stratus/core';

/** GET /api/cloud/gateway/health (SPEC: "not shown"): the edge as a whole, and the listeners of the caller's own routes. */
export function presentGatewayHealth(node: EdgeNode | null, routes: GatewayRoute[], config: AppConfig) {
  // No route serves while the gateway HAProxy is down, whatever each one last recorded.
  const bound = node?.gatewayBound ? routes.filter((r) => r.boundAt && !r.bindError) : [];
  const missing = routes.filter((r) => !bound.includes(r)).map((r) => r.port);
  const status = !node ? 'down' : missing.length || !node.httpBound || !node.gatewayBound ? 'degraded' : 'ok';
  return {
    status,
    edge: node ? { name: node.name, threads: node.threads, started_at: node.startedAt.toISOString(), last_seen: node.heartbeatAt.toISOString() } : null,
    listeners: {
      expected: routes.length,
      bound: bound.length,
      missing,
      errors: Object.fromEntries(routes.filter((r) => r.bindError).map((r) => [r.port, r.bindError])),
    },
    http_listener: {
      host: config.EDGE_HTTP_HOST,
      port: config.EDGE_HTTP_PORT,
      bound: node?.httpBound ?? false,
    },
    port_range: { ...config.gatewayPorts, held: node?.gatewayBound ?? false, taken: node?.portsTaken ?? [] },
    checked_at: new Date().toISOString(),
  };
}
