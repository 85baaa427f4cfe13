import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Cluster } from './cluster.entity';

export const CLUSTER_EVENT_KINDS = ['build', 'heal', 'scale_out', 'scale_in', 'update'] as const;
export type ClusterEventKind = (typeof CLUSTER_EVENT_KINDS)[number];

/** Something the cluster did on its own or was asked to, and why: what the listing shows as recent events. */
@Entity('cluster_events')
@Index('cluster_events_cluster', ['clusterId', 'at'])
export class ClusterEvent {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column({ name: 'cluster_id', type: 'uuid' })
  clusterId: string;

  @ManyToOne(() => Cluster, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cluster_id' })
  cluster?: Cluster;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  at: Date;

  @Column({ type: 'text' })
  kind: ClusterEventKind;

  @Column({ type: 'text' })
  reason: string;
}
