import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A project's own limit for one quota, set by an operator (`cli quota set`).
 * A quota with no row here takes the configured default (QUOTA_*).
 */
@Entity('project_quotas')
export class ProjectQuota {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  /** One of QUOTA_NAMES. */
  @PrimaryColumn({ type: 'text' })
  quota: string;

  @Column({ name: 'limit', type: 'int' })
  limit: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
