import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Certificate } from '../gateway/certificate.entity';

/** The edge's HAProxy processes a listener can be served by (see `router`). */
export type EdgeRouter = 'gateway' | 'hosts' | 'balancer';

/**
 * A load balancer's listener as the local provider wants it: written by the
 * worker's load-balancer driver, read by the edge, which writes back whether
 * it serves (`bound_at`, `bind_error`).
 */
@Entity('load_balancers')
export class LoadBalancer {
  /** The caller's own name for it (a cluster's or an HA database's id). */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'inet' })
  address: string;

  @Column({ type: 'int' })
  port: number;

  /** `tcp` or `http` (by Host). */
  @Column({ type: 'text' })
  protocol: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  hosts: string[];

  /**
   * Which of the edge's HAProxy processes serves it, decided by the driver as
   * it writes the listener: 'gateway' (a tcp listener on the gateway's
   * ports), 'hosts' (an http listener on the edge's HTTP listener, by its
   * Host map) or 'balancer' (an HAProxy of its own address and port).
   */
  @Column({ type: 'text', default: 'balancer' })
  router: EdgeRouter;

  /** For a gateway listener that terminates TLS; the listener goes with its certificate. */
  @Column({ name: 'certificate_id', type: 'int', nullable: true })
  certificateId: number | null;

  @ManyToOne(() => Certificate, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'certificate_id' })
  certificate?: Certificate;

  /** The listener's HealthCheckSpec. */
  @Column({ name: 'health_check', type: 'jsonb' })
  healthCheck: Record<string, unknown>;

  @Column({ name: 'bound_at', type: 'timestamptz', nullable: true })
  boundAt: Date | null;

  @Column({ name: 'bind_error', type: 'text', nullable: true })
  bindError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
