import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Cluster } from '../clusters/cluster.entity';
import { Instance } from '../instances/instance.entity';

/**
 * A public hostname the edge routes, by Host header, to a port of an
 * instance, or to a cluster's balancer: an instance's proxy hosts move to
 * the cluster made from it (ClusterAdoption). One of the two, never both
 * (the database checks).
 */
@Entity('proxy_hosts')
@Index('proxy_hosts_instance', ['instanceId'])
// Keyset pages of a project's list, and of every project's for the public list (keyset-page.ts).
@Index('proxy_hosts_project_page', ['projectId', 'createdAt', 'id'])
@Index('proxy_hosts_page', ['createdAt', 'id'])
export class ProxyHost {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lower case, unique. */
  @Column({ type: 'text', unique: true })
  hostname: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  /** null once it moved to a cluster. */
  @Column({ name: 'instance_id', type: 'uuid', nullable: true })
  instanceId: string | null;

  /** The instance's proxy hosts go with it. */
  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id' })
  instance?: Instance;

  /** The cluster whose balancer it forwards to (at the cluster's port, which `forwardPort` then reads); null for an instance's. */
  @Index('proxy_hosts_cluster')
  @Column({ name: 'cluster_id', type: 'uuid', nullable: true })
  clusterId: string | null;

  /** A cluster's proxy hosts go with it. */
  @ManyToOne(() => Cluster, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cluster_id', foreignKeyConstraintName: 'FK_proxy_hosts_cluster' })
  cluster?: Cluster;

  @Column({ name: 'forward_port', type: 'int' })
  forwardPort: number;

  /** Counts its changes: each is a job of its own (`host.apply`). */
  @Column({ type: 'int', default: 1 })
  generation: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
