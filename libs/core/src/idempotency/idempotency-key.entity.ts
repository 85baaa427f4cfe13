import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One `Idempotency-Key` a caller sent with a create, and the answer it got.
 * `response` is null while the first request runs (the claim other
 * processes see as "in flight"), and stays null if its process died
 * between the create's commit and keeping the answer. It never holds a
 * password (see apps/api/src/http/idempotency.interceptor.ts).
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKey {
  /** The caller: credential kind and project, so two projects' equal keys never meet. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_idempotency_keys' })
  scope: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_idempotency_keys' })
  key: string;

  /** SHA-256 of the method, route and canonical JSON of the body. */
  @Column({ type: 'text' })
  fingerprint: string;

  /**
   * The request that holds the claim, a random id of its own; a retry that
   * takes a stale claim over replaces it (IdempotencyKeys.claim).
   */
  @Column({ type: 'uuid', nullable: true })
  holder: string | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ type: 'jsonb', nullable: true })
  response: unknown;

  /**
   * Set in the create's own transaction as it commits (IdempotentCommits):
   * the resource exists from then on, answered or not.
   */
  @Column({ name: 'committed_at', type: 'timestamptz', nullable: true })
  committedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
