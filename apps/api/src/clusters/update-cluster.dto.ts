import { ApiPropertyOptional } from '@nestjs/swagger';
import { ClusterUpdate } from '@stratus/core';
import { OptionalInt, OptionalString } from '../http/field.decorators';
import { MAX_CLUSTER_SIZE, OptionalFraction } from './create-cluster.dto';

const UNCHANGED = 'accepted only as it is (the same value); a change is refused with 400: create a new cluster for another';

/**
 * A cluster's update: the create fields, each optional (left out, it keeps
 * its value), plus desired_size. Each field's own type and range are
 * checked here as at create; the rules between fields are the cluster's
 * life's (ClusterLifecycle), the same as at create.
 */
export class UpdateClusterDto implements ClusterUpdate {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalString()
  name?: string;

  @ApiPropertyOptional({ description: 'image (or snapshot) id or name; a change replaces the members one at a time (rolling update)' })
  @OptionalString()
  image?: string;

  @ApiPropertyOptional({ description: 'flavor id or name; a change replaces the members one at a time (rolling update)' })
  @OptionalString()
  flavor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CLUSTER_SIZE, description: 'members always running' })
  @OptionalInt(1, MAX_CLUSTER_SIZE)
  min_size?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CLUSTER_SIZE, description: 'peak members; at least min_size' })
  @OptionalInt(1, MAX_CLUSTER_SIZE)
  max_size?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_CLUSTER_SIZE,
    description: 'members to keep now, within min_size..max_size; when left out, the current one brought within them. The autoscaler moves it again after its cooldown',
  })
  @OptionalInt(1, MAX_CLUSTER_SIZE)
  desired_size?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'CPU fraction that adds a member' })
  @OptionalFraction()
  scale_out_threshold?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'CPU fraction that removes a member; below scale_out_threshold' })
  @OptionalFraction()
  scale_in_threshold?: number;

  @ApiPropertyOptional({ description: 'SSH keypair name; a change replaces the members one at a time (rolling update)' })
  @OptionalString()
  key_name?: string;

  @ApiPropertyOptional({ description: 'shell script every new member runs at its first boot; a change replaces the members one at a time', maxLength: 65535 })
  @OptionalString(65535)
  user_data?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 65535, description: UNCHANGED })
  @OptionalInt(1, 65535)
  port?: number;

  @ApiPropertyOptional({ maxLength: 253, description: UNCHANGED })
  @OptionalString(253)
  dnsName?: string;

  @ApiPropertyOptional({ description: UNCHANGED })
  @OptionalString()
  backend_network_id?: string;

  @ApiPropertyOptional({ description: UNCHANGED })
  @OptionalString()
  backend_subnet_id?: string;
}
