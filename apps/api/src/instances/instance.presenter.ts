import { Instance, instanceState } from '@stratus/core';

/** SPEC.md's create response: `building`, and `created_at` (the list says `created`). */
export function presentCreated(i: Instance) {
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

/** SPEC.md's list item, plus `status_reason` (why an instance is in ERROR). */
export function presentListItem(i: Instance) {
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

/** GET /v1/instances/:id: the list item and the rest of the spec. */
export function presentDetail(i: Instance) {
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
