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

  @ApiProperty({ type: EdgeView, nullable: true, description: 'null when no edge is running' })
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
      errors: Object.fromEntries(routes.flatMap((r) => (r.bindError ? [[r.port, r.bindError]] : []))),
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
