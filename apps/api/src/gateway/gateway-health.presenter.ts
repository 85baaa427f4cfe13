import { ApiProperty } from '@nestjs/swagger';
import { AppConfig, EdgeNode, GatewayRoute } from '@stratus/core';

class EdgeView {
  @ApiProperty()
  name: string;

  @ApiProperty()
  threads: number;

  @ApiProperty({ format: 'date-time' })
  started_at: string;

  @ApiProperty({ format: 'date-time', description: 'its last heartbeat' })
  last_seen: string;
}

class ListenersView {
  @ApiProperty({ description: "the caller's routes" })
  expected: number;

  @ApiProperty()
  bound: number;

  @ApiProperty({ type: [Number], description: 'ports of routes not bound' })
  missing: number[];

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'why a port could not be bound, by port' })
  errors: Record<string, string>;
}

class HttpListenerView {
  @ApiProperty()
  host: string;

  @ApiProperty()
  port: number;

  @ApiProperty()
  bound: boolean;
}

class PortRangeView {
  @ApiProperty()
  from: number;

  @ApiProperty()
  to: number;

  @ApiProperty({ description: "the gateway's HAProxy holds the range" })
  held: boolean;

  @ApiProperty({ type: [Number], description: 'ports of the range another process holds' })
  taken: number[];
}

/** GET /api/cloud/gateway/health (SPEC: "not shown"): the edge as a whole, and the listeners of the caller's own routes. */
export class GatewayHealthView {
  @ApiProperty({ enum: ['ok', 'degraded', 'down'] })
  status: 'ok' | 'degraded' | 'down';

  @ApiProperty({ type: EdgeView, nullable: true, description: "null when no edge is running (and on OpenStack, whose load balancers are the cloud's)" })
  edge: EdgeView | null;

  @ApiProperty({ type: ListenersView })
  listeners: ListenersView;

  @ApiProperty({ type: HttpListenerView })
  http_listener: HttpListenerView;

  @ApiProperty({ type: PortRangeView })
  port_range: PortRangeView;

  @ApiProperty({ format: 'date-time' })
  checked_at: string;
}

export function presentGatewayHealth(node: EdgeNode | null, routes: GatewayRoute[], config: AppConfig): GatewayHealthView {
  if (!config.edgeBalances) return presentCloudBalancers(routes, config);
  // No route serves while the gateway HAProxy is down, whatever each one last recorded.
  const bound = node?.gatewayBound ? routes.filter((r) => r.boundAt && !r.bindError) : [];
  const status = !node ? 'down' : bound.length < routes.length || !node.httpBound || !node.gatewayBound ? 'degraded' : 'ok';
  return {
    status,
    edge: node ? { name: node.name, threads: node.threads, started_at: node.startedAt.toISOString(), last_seen: node.heartbeatAt.toISOString() } : null,
    listeners: listenersView(routes, bound),
    http_listener: {
      host: config.EDGE_HTTP_HOST,
      port: config.EDGE_HTTP_PORT,
      bound: node?.httpBound ?? false,
    },
    port_range: { ...config.gatewayPorts, held: node?.gatewayBound ?? false, taken: node?.portsTaken ?? [] },
    checked_at: new Date().toISOString(),
  };
}

/**
 * Where the cloud's load balancers are the gateway (OpenStack): no edge
 * runs, and each route's listener is one of the cloud's, whose verdict
 * the worker wrote to the route. The address and ports are the load
 * balancers' own, which nothing else on the cloud can hold: held, none taken.
 */
function presentCloudBalancers(routes: GatewayRoute[], config: AppConfig): GatewayHealthView {
  const bound = routes.filter((r) => r.boundAt && !r.bindError);
  return {
    status: bound.length === routes.length ? 'ok' : 'degraded',
    edge: null,
    listeners: listenersView(routes, bound),
    http_listener: { host: config.EDGE_HTTP_HOST, port: config.EDGE_HTTP_PORT, bound: true },
    port_range: { ...config.gatewayPorts, held: true, taken: [] },
    checked_at: new Date().toISOString(),
  };
}

function listenersView(routes: GatewayRoute[], bound: GatewayRoute[]): ListenersView {
  return {
    expected: routes.length,
    bound: bound.length,
    missing: routes.filter((r) => !bound.includes(r)).map((r) => r.port),
    errors: Object.fromEntries(routes.flatMap((r) => (r.bindError ? [[r.port, r.bindError]] : []))),
  };
}
