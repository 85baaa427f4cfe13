import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { InstanceStatus } from '../status/transitions';

/** The desired spec of a compute instance and what was last observed of it. */
@Entity('instances')
// Keyset pages of a project's list, unfiltered and by status or name (keyset-page.ts).
@Index('instances_project_page', ['projectId', 'createdAt', 'id'])
@Index('instances_project_status_page', ['projectId', 'status', 'createdAt', 'id'])
@Index('instances_project_name_page', ['projectId', 'name', 'createdAt', 'id'])
// What a reconcile sweep reads, a batch at a time in id order (live-batches.ts). No index of
// status alone: the planner would take it, and sort every live row for each batch.
@Index('instances_live', ['id'], { where: `status IN ('BUILD', 'ACTIVE', 'SHUTOFF', 'DELETING')` })
@Index('instances_address', ['address'])
export class Instance {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'image_id', type: 'text' })
  imageId: string;

  @Column({ name: 'image_name', type: 'text', nullable: true })
  imageName: string | null;

  @Column({ name: 'flavor_id', type: 'text' })
  flavorId: string;

  @Column({ name: 'network_id', type: 'text' })
  networkId: string;

  @Column({ name: 'keypair_name', type: 'text' })
  keypairName: string;

  @Column({ name: 'security_group_ids', type: 'text', array: true })
  securityGroupIds: string[];

  /** Application port, exported to the instance as PORT. */
  @Column({ type: 'int', default: 3000 })
  port: number;

  @Column({ type: 'text', nullable: true })
  dname: string | null;

  @Column({ name: 'user_data', type: 'text', nullable: true })
  userData: string | null;

  /**
   * Private address on the provider's network: null until the worker's
   * create job has it from the network driver, and again once a delete
   * gave it back. Shown as metadata.privateIp while held.
   */
  @Column({ type: 'inet', nullable: true })
  address: string | null;

  @Column({ type: 'text' })
  status: InstanceStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  /** String values only, as SPEC.md shows them. */
  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, string>;

  /** Bumped by every change of desired state; job ids and status updates carry it. */
  @Column({ type: 'int', default: 1 })
  generation: number;

  /** A BUILD older than this is failed by the reconciler. */
  @Column({ name: 'build_deadline', type: 'timestamptz', nullable: true })
  buildDeadline: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
