import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { AddressLease } from '../addresses/address-lease.entity';
import { Certificate } from './certificate.entity';

/**
 * A TCP route of the gateway: the edge listens on `port` and forwards to
 * targetIp:targetPort. The port is unique (the database enforces it); the
 * edge records in `boundAt` / `bindError` whether it holds the listener.
 */
@Entity('gateway_routes')
export class GatewayRoute {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'int', unique: true })
  port: number;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text', default: 'tcp' })
  protocol: 'tcp';

  /** Canonical spelling of the target address. */
  @Column({ name: 'target_ip', type: 'text' })
  targetIp: string;

  @Column({ name: 'target_port', type: 'int' })
  targetPort: number;

  /**
   * The lease (resource id) of the instance or database the route reaches.
   * When that resource is deleted and releases its address, the route goes
   * with the lease: the address may next be leased to another project.
   * Null only for routes made before routes were tied to leases.
   */
  @Column({ name: 'target_lease', type: 'text', nullable: true })
  targetLease: string | null;

  @ManyToOne(() => AddressLease, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_lease', referencedColumnName: 'resourceId' })
  lease?: AddressLease;

  @Column({ name: 'certificate_id', type: 'int', nullable: true })
  certificateId: number | null;

  /** A certificate in use cannot be removed: the database refuses, whatever checked before. */
  @ManyToOne(() => Certificate, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'certificate_id' })
  certificate?: Certificate;

  @Column({ name: 'bound_at', type: 'timestamptz', nullable: true })
  boundAt: Date | null;

  @Column({ name: 'bind_error', type: 'text', nullable: true })
  bindError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
