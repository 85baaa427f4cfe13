import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Certificate } from './certificate.entity';

/**
 * A TCP route of the gateway: the edge listens on `port` and forwards to
 * targetIp:targetPort. The port is unique (the database enforces it); the
 * edge records in `boundAt` / `bindError` whether it holds the listener.
 */
@Entity('gateway_routes')
@Index('gateway_routes_target_lease', ['targetLease'])
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
   * The key (databaseServerKey, or the instance id) of the instance or
   * database the route reaches. When that resource gives up its address
   * (deleted), the route goes: the address may next be assigned to another
   * project. Triggers keep this, as a foreign key would (migration
   * NetworkDriverAddresses). Null only for routes made before routes were
   * tied to their target.
   */
  @Column({ name: 'target_lease', type: 'text', nullable: true })
  targetLease: string | null;

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
