import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { LoadBalancer } from './load-balancer.entity';

/**
 * One backend of a load balancer: its state is the driver's word (active,
 * draining, removing), its health and connections the edge's, as HAProxy
 * last reported them. A removing backend's row goes once the edge no longer
 * holds it (its last connection closed).
 */
@Entity('load_balancer_backends')
export class LoadBalancerBackend {
  @PrimaryColumn({ name: 'listener_id', type: 'text' })
  listenerId: string;

  @PrimaryColumn({ type: 'inet' })
  address: string;

  @PrimaryColumn({ type: 'int' })
  port: number;

  @ManyToOne(() => LoadBalancer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'listener_id' })
  listener?: LoadBalancer;

  @Column({ type: 'text', default: 'active' })
  state: string;

  @Column({ type: 'text', default: 'unknown' })
  health: string;

  @Column({ type: 'int', default: 0 })
  connections: number;

  @Column({ name: 'observed_at', type: 'timestamptz', nullable: true })
  observedAt: Date | null;
}
