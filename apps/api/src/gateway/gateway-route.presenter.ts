import { ApiProperty } from '@nestjs/swagger';
import { GatewayRoute } from '@stratus/core';
import { MessageView } from '../http/message.view';

/** The route object (SPEC: "not shown"): the request's fields plus where it listens and since when. */
export class GatewayRouteView {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'listening port on the gateway' })
  port: number;

  @ApiProperty({ enum: ['tcp'] })
  protocol: 'tcp';

  @ApiProperty()
  targetIp: string;

  @ApiProperty()
  targetPort: number;

  @ApiProperty({ type: Number, nullable: true })
  certificate_id: number | null;

  @ApiProperty({ description: 'the route terminates TLS (it has a certificate)' })
  tls: boolean;

  @ApiProperty({ description: 'where the gateway listens' })
  host: string;

  @ApiProperty({ enum: ['active', 'pending'], description: 'active once the edge has bound the listener' })
  status: 'active' | 'pending';

  @ApiProperty()
  project_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class AvailablePortView {
  @ApiProperty()
  port: number;

  @ApiProperty({ description: 'where the gateway listens' })
  host: string;
}

export class UsedPortsView {
  @ApiProperty({ type: [Number] })
  ports: number[];

  @ApiProperty()
  count: number;
}

export class RouteDeletedView extends MessageView {
  @ApiProperty()
  port: number;
}

export function presentRoute(r: GatewayRoute, host: string): GatewayRouteView {
  return {
    id: r.id,
    port: r.port,
    protocol: r.protocol,
    targetIp: r.targetIp,
    targetPort: r.targetPort,
    certificate_id: r.certificateId,
    tls: r.certificateId !== null,
    host,
    status: r.boundAt ? 'active' : 'pending',
    project_id: r.projectId,
    created_at: r.createdAt.toISOString(),
  };
}
