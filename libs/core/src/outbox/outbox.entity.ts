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

  /**
   * BullMQ priority the job is queued with (lower is sooner), so the direct
   * enqueue and the relay queue it alike; null: none, served before any
   * ranked job (deletes, applies). Creates are ranked by how many of their
   * project's creates still wait (ProjectQuotas.enforce): fair scheduling.
   */
  @Column({ type: 'int', nullable: true })
  priority: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;
}
