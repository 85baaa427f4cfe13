import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Instance } from '../instances/instance.entity';

/** A public hostname the edge routes, by Host header, to a port of an instance. */
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

  @Column({ name: 'instance_id', type: 'uuid' })
  instanceId: string;

  /** The instance's proxy hosts go with it. */
  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id' })
  instance?: Instance;

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
