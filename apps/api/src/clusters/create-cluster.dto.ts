import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CLUSTER_DEFAULTS, NewCluster } from '@stratus/core';
import { IsNumber, Max, Min } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { Omittable, OptionalInt, OptionalString, RequiredString } from '../http/field.decorators';

/** The most members a cluster may have: what one installation is sized for (not shown by SPEC.md). */
export const MAX_CLUSTER_SIZE = 20;

/** A CPU fraction: a number from 0 to 1. */
export const OptionalFraction = () => applyDecorators(Omittable(), IsNumber({ allowNaN: false, allowInfinity: false }), Min(0), Max(1));

/** SPEC.md's cluster create fields, under their names; the rules between fields are the cluster's life's (ClusterLifecycle). */
export class CreateClusterDto implements NewCluster {
  @ApiProperty({ maxLength: 255 })
  @RequiredString()
  name: string;

  @ApiProperty({ description: 'image (or snapshot) id or name every member boots from, from GET /v1/images' })
  @RequiredString()
  image: string;

  @ApiProperty({ description: 'member size: flavor id or name, from GET /v1/flavors' })
  @RequiredString()
  flavor: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CLUSTER_SIZE, default: CLUSTER_DEFAULTS.min_size, description: 'members always running; 3 gives high availability' })
  @OptionalInt(1, MAX_CLUSTER_SIZE)
  min_size?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CLUSTER_SIZE, default: CLUSTER_DEFAULTS.max_size, description: 'peak members; at least min_size' })
  @OptionalInt(1, MAX_CLUSTER_SIZE)
  max_size?: number;

  @ApiProperty({ description: 'private network of the members, from GET /v1/networks' })
  @RequiredString()
  backend_network_id: string;

  @ApiPropertyOptional({ description: "the network's subnet (`<network id>-subnet`); derived from backend_network_id when omitted" })
  @OptionalString()
  backend_subnet_id?: string;

  @ApiProperty({ description: 'SSH keypair name, from GET /v1/keypairs' })
  @RequiredString()
  key_name: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 65535,
    default: CLUSTER_DEFAULTS.port,
    description: "the balancer's port, and every member's application port (exported to it as PORT)",
  })
  @OptionalInt(1, 65535)
  port?: number;

  @ApiPropertyOptional({ description: 'public name of the balancer (a label gets the domain suffix); generated when omitted', maxLength: 253 })
  @OptionalString(253)
  dnsName?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: CLUSTER_DEFAULTS.scale_out_threshold, description: 'CPU fraction that adds a member' })
  @OptionalFraction()
  scale_out_threshold?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: CLUSTER_DEFAULTS.scale_in_threshold, description: 'CPU fraction that removes a member; below scale_out_threshold' })
  @OptionalFraction()
  scale_in_threshold?: number;

  @ApiPropertyOptional({ description: 'shell script every member runs at its first boot', maxLength: 65535 })
  @OptionalString(65535)
  user_data?: string;
}
