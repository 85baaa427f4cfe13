import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { NewClusterFromInstance } from '@stratus/core';
import { OptionalInt, RequiredString } from '../http/field.decorators';
import { CreateClusterDto } from './create-cluster.dto';

/**
 * SPEC.md's from-instance fields: the create's without `image` (the other
 * members boot from a snapshot of the instance), plus `instance_id`; `port`
 * is the instance's own.
 */
export class CreateClusterFromInstanceDto extends OmitType(CreateClusterDto, ['image', 'port'] as const) implements NewClusterFromInstance {
  @ApiProperty({ format: 'uuid', description: 'a running (ACTIVE) instance of your project, not yet a member of a cluster: the first member, as it runs' })
  @RequiredString()
  instance_id: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 65535,
    description: "the port the instance serves on (its `port`), which is the balancer's port and every member's application port; defaults to it and may not differ",
  })
  @OptionalInt(1, 65535)
  port?: number;
}
