import { ApiProperty } from '@nestjs/swagger';
import { CLUSTER_EVENT_KINDS, CLUSTER_STATUSES, ClusterEventKind, ClusterState, ClusterStatus, MemberState, placementOf } from '@stratus/core';

/*
 * Each class is the shape its presenter returns (the presenter is typed with
 * it, so the two cannot part) and what the OpenAPI document shows.
 */

export class ClusterProgressView {
  @ApiProperty({ description: 'members running and passing their health check' })
  healthy: number;

  @ApiProperty({ description: 'members the cluster keeps (desired_size)' })
  desired: number;

  @ApiProperty({ example: '2/3', description: '`healthy/desired`' })
  summary: string;

  @ApiProperty({ type: String, nullable: true, description: 'what the build or repair is doing now; null at rest' })
  step: string | null;
}

export class ClusterMemberView {
  @ApiProperty()
  instance_id: string;

  @ApiProperty({ type: String, nullable: true, description: "the member's private address; null until assigned" })
  address: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'the machine it runs on; null until known' })
  host: string | null;

  @ApiProperty({ description: 'its instance status (GET /v1/instances/{id})' })
  status: string;

  @ApiProperty({ enum: ['up', 'down', 'unknown'], description: "the balancer's health check: up takes requests; unknown before the first check" })
  health: 'up' | 'down' | 'unknown';

  @ApiProperty({ format: 'date-time', description: 'since when health reads as it does' })
  since: string;

  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'when its check first passed (it joined the balancer)' })
  joined_at: string | null;

  @ApiProperty({ description: "the cluster's spec generation it was built from" })
  spec_generation: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class ClusterLoadBalancerView {
  @ApiProperty({ type: String, nullable: true, description: "the cluster's own address; null until assigned" })
  address: string | null;

  @ApiProperty()
  port: number;
}

export class ClusterEventView {
  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ enum: CLUSTER_EVENT_KINDS })
  kind: ClusterEventKind;

  @ApiProperty()
  reason: string;
}

export class ClusterPlacementView {
  @ApiProperty({ enum: ['spread', 'single-host', 'shared', 'pending'] })
  status: 'spread' | 'single-host' | 'shared' | 'pending';

  @ApiProperty()
  reason: string;

  @ApiProperty({ type: [String] })
  hosts: string[];
}

export class ClusterView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: CLUSTER_STATUSES })
  status: ClusterStatus;

  @ApiProperty({ type: String, nullable: true, description: 'why the cluster is *_FAILED (an UPDATE_FAILED cluster still serves on the members of its previous spec)' })
  status_reason: string | null;

  @ApiProperty({ type: ClusterProgressView })
  progress: ClusterProgressView;

  @ApiProperty({ description: 'what new members boot from; for a cluster made from an instance, the snapshot image of it' })
  image_id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the running instance the cluster was made from (POST /v1/clusters/from-instance), its first member; null for a cluster built from an image',
  })
  source_instance_id: string | null;

  @ApiProperty()
  flavor_id: string;

  @ApiProperty()
  backend_network_id: string;

  @ApiProperty()
  backend_subnet_id: string;

  @ApiProperty()
  key_name: string;

  @ApiProperty()
  port: number;

  @ApiProperty()
  dnsName: string;

  @ApiProperty({ description: "the dnsName as a URL through the edge's HTTP listener" })
  url: string;

  @ApiProperty()
  min_size: number;

  @ApiProperty()
  max_size: number;

  @ApiProperty()
  desired_size: number;

  @ApiProperty()
  scale_out_threshold: number;

  @ApiProperty()
  scale_in_threshold: number;

  @ApiProperty({
    description: "the member definition's version (image, flavor, key_name, user_data): an update that changes it replaces every member of another, one at a time",
  })
  spec_generation: number;

  @ApiProperty({ type: ClusterLoadBalancerView })
  load_balancer: ClusterLoadBalancerView;

  @ApiProperty({ type: [ClusterMemberView], description: 'oldest first' })
  members: ClusterMemberView[];

  @ApiProperty({ type: [ClusterEventView], description: 'the most recent first: build, heal, scaling and update events with their reasons' })
  events: ClusterEventView[];

  @ApiProperty({ type: ClusterPlacementView })
  placement: ClusterPlacementView;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The create answer: SPEC's message, and the cluster as the list will show it. */
export class ClusterCreatedView extends ClusterView {
  @ApiProperty({ example: 'Stack creation started' })
  message: string;
}

/** Where the edge serves the dnsName (its HTTP listener's port; 80 is left out of the URL). */
export interface EdgeHttp {
  port: number;
}

const healthy = (m: MemberState) => m.instanceStatus === 'ACTIVE' && m.health === 'up';
const live = (m: MemberState) => m.instanceStatus === 'BUILD' || m.instanceStatus === 'ACTIVE';

export function presentCluster({ cluster: c, members, events }: ClusterState, edge: EdgeHttp): ClusterView {
  const up = members.filter(healthy).length;
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    status_reason: c.statusReason,
    progress: { healthy: up, desired: c.desiredSize, summary: `${up}/${c.desiredSize}`, step: c.step },
    image_id: c.imageId,
    source_instance_id: c.sourceInstanceId,
    flavor_id: c.flavorId,
    backend_network_id: c.networkId,
    backend_subnet_id: c.subnetId,
    key_name: c.keyName,
    port: c.port,
    dnsName: c.dnsName,
    url: `http://${c.dnsName}${edge.port === 80 ? '' : `:${edge.port}`}/`,
    min_size: c.minSize,
    max_size: c.maxSize,
    desired_size: c.desiredSize,
    scale_out_threshold: c.scaleOutThreshold,
    scale_in_threshold: c.scaleInThreshold,
    spec_generation: c.specGeneration,
    load_balancer: { address: c.address, port: c.port },
    members: members.map((m) => ({
      instance_id: m.instanceId,
      address: m.address,
      host: m.host,
      status: m.instanceStatus,
      health: m.health,
      since: m.healthSince.toISOString(),
      joined_at: m.joinedAt?.toISOString() ?? null,
      spec_generation: m.specGeneration,
      created_at: m.createdAt.toISOString(),
    })),
    events: events.map((e) => ({ at: e.at.toISOString(), kind: e.kind, reason: e.reason })),
    placement: placementOf(members.filter(live).map((m) => m.host)),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function presentCreated(state: ClusterState, edge: EdgeHttp): ClusterCreatedView {
  return { message: 'Stack creation started', ...presentCluster(state, edge) };
}
