import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, looksLikePostgresUnreachable, postgresPort } from '@stratus/core';
import { DataSource, QueryFailedError } from 'typeorm';

/** A job waiting for our PostgreSQL looks again after half the outage so far, within these bounds. */
const RECHECK_MIN_MS = 1_000;
const RECHECK_MAX_MS = 15_000;
/** Jobs failing on our PostgreSQL this long after the last one are a new outage. */
const OUTAGE_GAP_MS = 30_000;

/** Set once the worker's providers are made; a job run outside a worker (a spec) has none. */
let waitForOwn: ((err: unknown) => Promise<number | null>) | null = null;

/** OwnDatabase.waitFor of the worker's, or null outside a worker. */
export function ownDatabaseWait(err: unknown): Promise<number | null> {
  return waitForOwn ? waitForOwn(err) : Promise.resolve(null);
}

/**
 * The control plane's own PostgreSQL, as the jobs see it. A job that fails
 * because it is out of reach has done nothing wrong, and neither has its
 * provider: it waits for PostgreSQL without spending an attempt (runHandler).
 * Spending them, an outage longer than a job's retries (about two minutes)
 * would fail every create in flight, and an ERROR written as PostgreSQL
 * came back would be a false one.
 */
@Injectable()
export class OwnDatabase {
  private readonly logger = new Logger('jobs');
  private readonly port: number;
  private outage: { since: number; last: number } | null = null;

  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
  ) {
    this.port = postgresPort(config.DATABASE_URL);
    waitForOwn = (err) => this.waitFor(err);
  }

  /**
   * How long a job that failed with `err` waits for our PostgreSQL, or null
   * when the failure is not that. An error that looks like an unreachable
   * PostgreSQL may be a managed database's, so our own is asked too. It may
   * also have come back between the failure and the asking (a crashed server
   * refuses connections "not yet accepting" for a moment, then answers): the
   * failure is still ours when it came from a statement of ours (TypeORM's
   * and the hot pool's are QueryFailedErrors, and they talk to ours alone)
   * or when ours was away a moment ago, and its job looks again at once.
   */
  async waitFor(err: unknown): Promise<number | null> {
    if (!looksLikePostgresUnreachable(err, this.port)) return null;
    const now = Date.now();
    if (await this.answers()) {
      const awayJustNow = this.outage !== null && now - this.outage.last <= OUTAGE_GAP_MS;
      return err instanceof QueryFailedError || awayJustNow ? RECHECK_MIN_MS : null;
    }
    if (!this.outage || now - this.outage.last > OUTAGE_GAP_MS) {
      this.outage = { since: now, last: now };
      this.logger.warn({ err: String(err) }, 'PostgreSQL is out of reach: jobs that fail on it wait for it without spending attempts');
    }
    this.outage.last = now;
    return Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, (now - this.outage.since) / 2));
  }

  private answers(): Promise<boolean> {
    return this.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
  }
}
