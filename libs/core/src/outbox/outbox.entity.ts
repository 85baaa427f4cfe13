import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A job that must reach the queue. Written in the same transaction as the
 * resource change it belongs to; the relay enqueues whatever the direct
 * enqueue after commit did not.
 */
@Entity('outbox')
@Index('outbox_pending', ['createdAt'], { where: 'dispatched_at IS NULL' })
export class OutboxEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'job_name', type: 'text' })
  jobName: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  /** Ids only, never specs or secrets. */
  @Column({ type: 'jsonb' })
  payload: Record<string, string | number>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;
}
