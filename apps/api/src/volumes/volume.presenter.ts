import { ApiProperty } from '@nestjs/swagger';
import { Volume, VOLUME_STATUSES, VolumeStatus } from '@stratus/core';
import { volumeMountpoint } from '@stratus/providers';

/*
 * Each class is the shape its presenter returns (the presenter is typed with
 * it, so the two cannot part) and what the OpenAPI document shows.
 */

export class VolumeAttachmentView {
  @ApiProperty()
  attachment_id: string;

  @ApiProperty()
  instance_id: string;

  @ApiProperty({ description: 'where the volume appears on the instance' })
  mountpoint: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  attached_at: string | null;
}

/** The volume object of create and list (SPEC: "not shown"); Cinder-like, with snake_case fields. */
export class VolumeView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ description: 'GiB' })
  size: number;

  @ApiProperty({ enum: VOLUME_STATUSES })
  status: VolumeStatus;

  @ApiProperty({ type: String, nullable: true, description: 'why the volume is in error' })
  status_reason: string | null;

  @ApiProperty({ type: [VolumeAttachmentView], description: 'empty, or the one attachment' })
  attachments: VolumeAttachmentView[];

  @ApiProperty()
  project_id: string;

  @ApiProperty()
  user_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The attach and detach result. */
export class VolumeAttachmentResultView {
  @ApiProperty({ type: String, nullable: true, description: 'null only once a detach has cleared it' })
  attachment_id: string | null;

  @ApiProperty()
  volume_id: string;

  @ApiProperty({ type: String, nullable: true })
  instance_id: string | null;

  @ApiProperty({ enum: VOLUME_STATUSES })
  status: VolumeStatus;

  @ApiProperty()
  mountpoint: string;
}

export function presentVolume(v: Volume): VolumeView {
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

export function presentAttachment(v: Volume): VolumeAttachmentResultView {
  return {
    attachment_id: v.attachmentId,
    volume_id: v.id,
    instance_id: v.instanceId,
    status: v.status,
    mountpoint: volumeMountpoint(v.id),
  };
}
