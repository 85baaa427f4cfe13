import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Instance } from '../instances/instance.entity';
import { Cluster } from './cluster.entity';

/** What the balancer's checks last said of a member; `unknown` before the first check. */
export type MemberHealth = 'up' | 'down' | 'unknown';

/**
 * An instance that is a member of a cluster. The link goes with either: an
 * instance deleted behind the cluster's back takes its link with it, and
 * the cluster's next look finds a member missing.
 */
@Entity('cluster_members')
@Index('cluster_members_cluster', ['clusterId', 'createdAt'])
export class ClusterMember {
  @PrimaryColumn({ name: 'instance_id', type: 'uuid' })
  instanceId: string;

  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id' })
  instance?: Instance;

  @Column({ name: 'cluster_id', type: 'uuid' })
  clusterId: string;

  @ManyToOne(() => Cluster, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cluster_id' })
  cluster?: Cluster;

  /** The cluster's spec_generation the member was built from. */
  @Column({ name: 'spec_generation', type: 'int' })
  specGeneration: number;

  /** The machine it runs on, as the provider says; what placement is judged by. */
  @Column({ type: 'text', nullable: true })
  host: string | null;

  @Column({ type: 'text', default: 'unknown' })
  health: MemberHealth;

  /** Since when `health` has read as it does. */
  @Column({ name: 'health_since', type: 'timestamptz', default: () => 'now()' })
  healthSince: Date;

  /** The first time its check passed: from then on it takes connections. */
  @Column({ name: 'joined_at', type: 'timestamptz', nullable: true })
  joinedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
