import { Volume } from '@stratus/core';
import { volumeMountpoint } from '@stratus/providers';

/** The volume object of create and list (SPEC: "not shown"); Cinder-like, with snake_case fields. */
export function presentVolume(v: Volume) {
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    size: v.sizeGb,
    status: v.status,
    status_reason: v.statusReason,
    attachments:
      v.attachmentId && v.instanceId
        ? [
            {
              attachment_id: v.attachmentId,
              instance_id: v.instanceId,
              mountpoint: volumeMountpoint(v.id),
              attached_at: v.attachedAt?.toISOString() ?? null,
            },
          ]
        : [],
    project_id: v.projectId,
    user_id: v.userId,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
  };
}

export function presentAttachment(v: Volume) {
  return {
    attachment_id: v.attachmentId,
    volume_id: v.id,
    instance_id: v.instanceId,
    status: v.status,
    mountpoint: volumeMountpoint(v.id),
  };
}
