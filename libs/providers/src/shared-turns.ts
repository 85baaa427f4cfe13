import { Client } from 'pg';
import { DriverError } from './driver-error';

/** The application_name of the sessions that hold and wait for turns (pg_stat_activity). */
export const TURN_SESSION_NAME = 'stratus turn';

/**
 * Work on a key done by one process at a time, across every process of the
 * control plane (several workers). The Octavia driver needs it, since
 * Octavia's API lets two changes sent at once to one load balancer both
 * through, and its worker then leaves the load balancer PENDING_UPDATE for
 * good (OpenStackLoadBalancerDriver); so do a database's jobs, whose create
 * and delete may run at once (DatabasesProcessor).
 */
export interface SharedTurns {
  take<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * SharedTurns on the control plane's own PostgreSQL: a session-level
 * advisory lock, held on a connection of its own for as long as the work
 * runs. Not a pooled connection: the work may wait on a cloud for minutes,
 * and one turn may take another (an id moving between addresses), which a
 * bounded pool could deadlock. A process that dies mid-turn ends its session,
 * and PostgreSQL gives the key to the next at once: nothing to expire.
 * A turn not had within `waitMs` (another process stuck on the cloud), or no
 * PostgreSQL to ask, is a retryable error: the job runs again later.
 */
export class PostgresTurns implements SharedTurns {
  constructor(
    private readonly url: string,
    private readonly waitMs: number,
  ) {}

  async take<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const session = new Client({ connectionString: this.url, application_name: TURN_SESSION_NAME, connectionTimeoutMillis: 30_000 });
    // A session PostgreSQL ends mid-turn (restart, terminate): its error is the work's to meet, not the process's.
    session.on('error', () => undefined);
    try {
      await session.connect();
      // lock_timeout bounds a wait for an advisory lock as for any other (55P03 when it runs out).
      await session.query(`SET lock_timeout = ${Math.max(1, Math.round(this.waitMs))}`);
      await session.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`stratus turn: ${key}`]);
    } catch (err) {
      await session.end().catch(() => undefined);
      throw new DriverError('retryable', `waiting for the turn on ${key}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return await fn();
    } finally {
      // Ending the session gives the lock back.
      await session.end().catch(() => undefined);
    }
  }
}
