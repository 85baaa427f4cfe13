import { DataSource } from 'typeorm';

/**
 * The tables whose builds are held to a deadline, and which of their rows
 * are still building. A deadline says how long a provider may take; it is
 * not meant to run down while the control plane itself cannot work.
 */
export const BUILD_DEADLINES = {
  instances: { table: 'instances', column: 'build_deadline', building: `status = 'BUILD'` },
  clusters: { table: 'clusters', column: 'build_deadline', building: `status = 'CREATE_IN_PROGRESS'` },
  databases: { table: 'managed_databases', column: 'provision_deadline', building: `status = 'provisioning'` },
} as const;
export type BuildDeadline = keyof typeof BUILD_DEADLINES;

/**
 * The workers beat the clock every few seconds while PostgreSQL and Redis
 * both answer them; a beat this long after the last one means none could
 * work in between: every worker stopped, or PostgreSQL or Redis away.
 */
export const STOOD_STILL_AFTER_MS = 15_000;

export interface Beat {
  /** How long the control plane stood still before this beat; 0 when it did not. */
  stoodStillMs: number;
  /** The building rows whose deadline moved on by it. */
  moved: number;
}

/**
 * Moves the work clock to now. After a stand-still, in the same transaction,
 * every build deadline moves on by it: by no more than the row's own age, as
 * a row created meanwhile (the api took creates while the workers were away)
 * waited only since then. The row lock makes workers that beat at once
 * apply one stand-still once: the second finds the clock already moved.
 */
export async function beatWorkClock(dataSource: DataSource, stoodStillAfterMs = STOOD_STILL_AFTER_MS): Promise<Beat> {
  return dataSource.transaction(async (manager) => {
    const [{ since }]: Array<{ since: string }> = await manager.query(`SELECT extract(epoch FROM now() - at) * 1000 AS since FROM work_clock FOR UPDATE`);
    const stoodStillMs = Number(since) > stoodStillAfterMs ? Number(since) : 0;
    let moved = 0;
    if (stoodStillMs > 0) {
      for (const { table, column, building } of Object.values(BUILD_DEADLINES)) {
        const [, count]: [unknown, number] = await manager.query(
          `UPDATE ${table} SET ${column} = ${column} + LEAST(make_interval(secs => $1), GREATEST(now() - created_at, interval '0')) WHERE ${column} IS NOT NULL AND ${building}`,
          [stoodStillMs / 1000],
        );
        moved += count;
      }
    }
    await manager.query(`UPDATE work_clock SET at = now()`);
    return { stoodStillMs: Math.round(stoodStillMs), moved };
  });
}

/** Whether the build of `id` is past its deadline now, as PostgreSQL has it. */
export async function pastBuildDeadline(dataSource: DataSource, kind: BuildDeadline, id: string | number): Promise<boolean> {
  const { table, column } = BUILD_DEADLINES[kind];
  const [row]: Array<{ past: boolean | null }> = await dataSource.query(`SELECT ${column} < now() AS past FROM ${table} WHERE id = $1`, [id]);
  return row?.past === true;
}
