import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NewGatewayRoute } from '@stratus/core';
import { OptionalInt, RequiredInt, RequiredString } from '../http/field.decorators';

export class CreateGatewayRouteDto implements NewGatewayRoute {
  @ApiProperty({ description: 'address traffic is forwarded to; must be inside the allowed networks (the instance networks by default)' })
  @RequiredString(64)
  targetIp: string;

  @ApiProperty({ minimum: 1, maximum: 65535 })
  @RequiredInt(1, 65535)
  targetPort: number;

  @ApiProperty({ enum: ['tcp'] })
  @RequiredString(16)
  protocol: string;

  @ApiProperty({ description: 'listening port on the gateway, inside GATEWAY_PORT_RANGE (see available-port)' })
  @RequiredInt(1, 65535)
  port: number;

  @ApiPropertyOptional({ description: 'id of a certificate loaded with `npm run cli -- certificate:add`; the route then terminates TLS' })
  @OptionalInt(1, 2_147_483_647)
  certificate_id?: number;
}
