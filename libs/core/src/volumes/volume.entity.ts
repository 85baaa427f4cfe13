import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { VolumeStatus } from '../status/transitions';

/**
 * A block storage volume. `instanceId` and `attachmentId` are the desired
 * attachment: set when an attach is requested, cleared when the volume is
 * detached. One attachment at a time (no multi-attach).
 */
@Entity('volumes')
// Keyset pages of a project's list, unfiltered and by status or name (keyset-page.ts).
@Index('volumes_project_page', ['projectId', 'createdAt', 'id'])
@Index('volumes_project_status_page', ['projectId', 'status', 'createdAt', 'id'])
@Index('volumes_project_name_page', ['projectId', 'name', 'createdAt', 'id'])
@Index('volumes_instance', ['instanceId'])
@Index('volumes_status', ['status'])
export class Volume {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'size_gb', type: 'int' })
  sizeGb: number;

  @Column({ type: 'text' })
  status: VolumeStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ name: 'instance_id', type: 'uuid', nullable: true })
  instanceId: string | null;

  @Column({ name: 'attachment_id', type: 'uuid', nullable: true, unique: true })
  attachmentId: string | null;

  @Column({ name: 'attached_at', type: 'timestamptz', nullable: true })
  attachedAt: Date | null;

  @Column({ type: 'int', default: 1 })
  generation: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
