import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { Invalid, QuotaExceeded } from '../errors/domain-errors';
import { ProjectQuota } from './project-quota.entity';
import { QUOTA_NAMES, QUOTA_RULES, QuotaName, isQuotaName } from './quota.rules';

/** A quota as a project sees it now. */
export interface QuotaUsage {
  quota: QuotaName;
  limit: number;
  used: number;
  /** The project's own limit (true) or the configured default. */
  custom: boolean;
}

/** What `enforce` found, within the limit. */
export interface Admitted {
  used: number;
  /**
   * The project's resources of this kind still waiting for the worker, this
   * one included: the rank its job is queued with (fair scheduling), so a
   * project's 200th pending create waits behind another project's first.
   */
  pending: number;
}

/**
 * The one place quotas are enforced. A create inserts its rows first and
 * then, in the same transaction, calls `enforce`: that takes a lock per
 * project and quota (a transaction-scoped advisory lock, released at commit
 * or rollback) and counts the usage, its own new rows included. Over the
 * limit it throws and the transaction rolls back: nothing was created.
 *
 * Why insert first and lock after: the lock is held only from the count to
 * the commit, not across the whole create, so one project's creates still
 * overlap up to there. And it is exact: of two creates racing for the
 * last slot, the one that counts second starts its count after the first
 * committed (READ COMMITTED takes a new snapshot per statement), sees both
 * rows, and rolls back.
 */
@Injectable()
export class ProjectQuotas {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async enforce(manager: EntityManager, projectId: string, quota: QuotaName, requested: number): Promise<Admitted> {
    return (await this.enforceAll(manager, projectId, [[quota, requested]]))[0];
  }

  /**
   * Several quotas of one create at once: their locks in one statement (in
   * one order, so two creates cannot each hold the lock the other waits
   * for) and their counts in another. Call it last before the statements
   * that need its answer, as the locks are held until commit.
   */
  async enforceAll(manager: EntityManager, projectId: string, demands: ReadonlyArray<readonly [QuotaName, number]>): Promise<Admitted[]> {
    const keys = demands.map(([quota]) => `quota:${projectId}:${quota}`).sort();
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`, [keys]);
    // Usage and the project's own limit of each, in one round trip, the locks held.
    const sql = demands
      .map(
        ([quota], i) =>
          `SELECT ${i} AS i, u.used, u.pending, (SELECT "limit" FROM project_quotas WHERE project_id = $1 AND quota = $${i + 2}) AS own FROM (${QUOTA_RULES[quota].sql}) u`,
      )
      .join(' UNION ALL ');
    const rows: Array<{ i: number; used: number; pending: number; own: number | null }> = await manager.query(sql, [projectId, ...demands.map(([quota]) => quota)]);
    return demands.map(([quota, requested], i) => {
      const usage = rows.find((r) => Number(r.i) === i)!;
      const limit = usage.own ?? QUOTA_RULES[quota].defaultLimit(this.config);
      if (usage.used > limit) {
        const unit = QUOTA_RULES[quota].unit;
        throw new QuotaExceeded(
          `quota exceeded: ${quota} (limit ${limit} ${unit}, in use ${usage.used - requested}, this request needs ${requested} more); ` +
            `delete some or ask an operator to raise the project's limit`,
        );
      }
      return { used: usage.used, pending: Number(usage.pending) };
    });
  }

  /** Every quota of the project: limit (its own or the default) and usage now. */
  async usage(projectId: string): Promise<QuotaUsage[]> {
    const own = await this.dataSource.getRepository(ProjectQuota).findBy({ projectId });
    return Promise.all(
      QUOTA_NAMES.map(async (quota) => {
        const row = own.find((q) => q.quota === quota);
        const [{ used }] = await this.dataSource.query(QUOTA_RULES[quota].sql, [projectId]);
        return { quota, limit: row?.limit ?? QUOTA_RULES[quota].defaultLimit(this.config), used: Number(used), custom: !!row };
      }),
    );
  }

  /** Sets the project's own limit for `quota`; `null` returns it to the default. Usage above a lowered limit stays; new creates are refused. */
  async setLimit(projectId: string, quota: string, limit: number | null): Promise<void> {
    if (!isQuotaName(quota)) throw new Invalid('quota', `must be one of ${QUOTA_NAMES.join(', ')}`);
    if (limit === null) {
      await this.dataSource.getRepository(ProjectQuota).delete({ projectId, quota });
      return;
    }
    if (!Number.isInteger(limit) || limit < 0 || limit > 2 ** 31 - 1) throw new Invalid('limit', 'must be a whole number, 0 or more');
    await this.dataSource.getRepository(ProjectQuota).upsert({ projectId, quota, limit }, ['projectId', 'quota']);
  }
}
