import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { ClusterStatus } from '../status/transitions';

/**
 * A cluster's desired spec (what every member boots from, how many, where
 * the balancer listens) and where its build or repair stands. Members are
 * instances, linked by cluster_members.
 */
@Entity('clusters')
// Keyset pages of a project's list, unfiltered and by status or name (keyset-page.ts).
@Index('clusters_project_page', ['projectId', 'createdAt', 'id'])
@Index('clusters_project_status_page', ['projectId', 'status', 'createdAt', 'id'])
@Index('clusters_project_name_page', ['projectId', 'name', 'createdAt', 'id'])
export class Cluster {
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

  @Column({ name: 'flavor_id', type: 'text' })
  flavorId: string;

  @Column({ name: 'network_id', type: 'text' })
  networkId: string;

  @Column({ name: 'subnet_id', type: 'text' })
  subnetId: string;

  @Column({ name: 'key_name', type: 'text' })
  keyName: string;

  /** Where the balancer listens, and the app port of every member (exported to it as PORT). */
  @Column({ type: 'int' })
  port: number;

  /** Lower case; unique (with the proxy hosts' names, checked at create). */
  @Column({ name: 'dns_name', type: 'text', unique: true })
  dnsName: string;

  @Column({ name: 'user_data', type: 'text', nullable: true })
  userData: string | null;

  @Column({ name: 'min_size', type: 'int' })
  minSize: number;

  @Column({ name: 'max_size', type: 'int' })
  maxSize: number;

  /** How many members the cluster keeps: min_size at create; scaling moves it within min..max. */
  @Column({ name: 'desired_size', type: 'int' })
  desiredSize: number;

  @Column({ name: 'scale_out_threshold', type: 'double precision' })
  scaleOutThreshold: number;

  @Column({ name: 'scale_in_threshold', type: 'double precision' })
  scaleInThreshold: number;

  @Column({ type: 'text' })
  status: ClusterStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  /** What the current build or repair is doing now, for `progress.step`; null when nothing is under way. */
  @Column({ type: 'text', nullable: true })
  step: string | null;

  /** The balancer's address, from the network driver; null until the build has it. */
  @Column({ type: 'inet', nullable: true })
  address: string | null;

  /** Bumped by every change of desired state (build, heal, scale, delete): job ids and status moves carry it. */
  @Column({ type: 'int', default: 1 })
  generation: number;

  /**
   * Bumped only when the member definition changes (image, flavor, user_data):
   * each member records the one it was built from, so a rolling update can
   * tell old members from new.
   */
  @Column({ name: 'spec_generation', type: 'int', default: 1 })
  specGeneration: number;

  /** When the autoscaler last changed desired_size: its cooldown runs from here. */
  @Column({ name: 'last_scaled_at', type: 'timestamptz', nullable: true })
  lastScaledAt: Date | null;

  /**
   * The running instance the cluster was made from (POST
   * /v1/clusters/from-instance): its first member, taken as it is; null for
   * a cluster built from an image. Kept after that member is replaced.
   */
  @Column({ name: 'source_instance_id', type: 'uuid', nullable: true })
  sourceInstanceId: string | null;

  /** A CREATE_IN_PROGRESS older than this ends CREATE_FAILED. */
  @Column({ name: 'build_deadline', type: 'timestamptz', nullable: true })
  buildDeadline: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
