import { ApiProperty } from '@nestjs/swagger';
import { Instance, INSTANCE_STATUSES, InstanceStatus, instanceState } from '@stratus/core';

/*
 * Each class is the shape its presenter returns (the presenter is typed with
 * it, so the two cannot part) and what the OpenAPI document shows.
 */

/** SPEC.md's create response: `building`, and `created_at` (the list says `created`). */
export class InstanceCreatedView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['building'] })
  status: 'building';

  @ApiProperty()
  image_id: string;

  @ApiProperty()
  flavor_id: string;

  @ApiProperty()
  network_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** SPEC.md's list item, plus `status_reason` (why an instance is in ERROR). */
export class InstanceListItemView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: INSTANCE_STATUSES, description: 'DELETING once a delete has started, until the instance leaves the list' })
  status: InstanceStatus;

  @ApiProperty({ enum: ['active', 'stopped', 'provisioning'] })
  state: ReturnType<typeof instanceState>;

  @ApiProperty()
  image_id: string;

  @ApiProperty()
  flavor_id: string;

  @ApiProperty({ format: 'date-time' })
  created: string;

  @ApiProperty({ format: 'date-time' })
  updated: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'string values: isPublic, enableSSH, floatingIp (when assigned), domain names, and what update-dns merged in',
  })
  metadata: Record<string, string>;

  @ApiProperty()
  user_id: string;

  @ApiProperty()
  project_id: string;

  @ApiProperty({ type: String, nullable: true })
  status_reason: string | null;
}

/** GET /v1/instances/:id: the list item and the rest of the spec. */
export class InstanceDetailView extends InstanceListItemView {
  @ApiProperty()
  network_id: string;

  @ApiProperty()
  keypair_name: string;

  @ApiProperty({ type: [String] })
  security_group_ids: string[];

  @ApiProperty({ example: '3000' })
  port: string;

  @ApiProperty({ type: String, nullable: true })
  dname: string | null;

  @ApiProperty({ type: String, nullable: true })
  image_name: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'private address; null until one is assigned' })
  address: string | null;
}

export function presentCreated(i: Instance): InstanceCreatedView {
  return {
    id: i.id,
    name: i.name,
    status: 'building',
    image_id: i.imageId,
    flavor_id: i.flavorId,
    network_id: i.networkId,
    created_at: i.createdAt.toISOString(),
  };
}

export function presentListItem(i: Instance): InstanceListItemView {
  return {
    id: i.id,
    name: i.name,
    status: i.status,
    state: instanceState(i.status),
    image_id: i.imageId,
    flavor_id: i.flavorId,
    created: i.createdAt.toISOString(),
    updated: i.updatedAt.toISOString(),
    metadata: i.metadata,
    user_id: i.userId,
    project_id: i.projectId,
    status_reason: i.statusReason,
  };
}

export function presentDetail(i: Instance): InstanceDetailView {
  return {
    ...presentListItem(i),
    network_id: i.networkId,
    keypair_name: i.keypairName,
    security_group_ids: i.securityGroupIds,
    port: String(i.port),
    dname: i.dname,
    image_name: i.imageName,
    address: i.address,
  };
}
