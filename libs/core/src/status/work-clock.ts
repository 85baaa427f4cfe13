import { DataSource } from 'typeorm';
import { CLUSTER_CAS } from '../clusters/cluster-cas';
import { DATABASE_CAS } from '../databases/database-cas';
import { INSTANCE_CAS } from '../instances/instance-cas';
import { creationStatus } from './transitions';

/**
 * The builds held to a deadline: each table's compareAndSet target (its
 * rows are building while in their creation status) and the property that
 * holds the deadline. A deadline says how long a provider may take; it is
 * not meant to run down while the control plane itself cannot work.
 */
const BUILD_DEADLINES = {
  instances: { target: INSTANCE_CAS, deadline: 'buildDeadline' },
  clusters: { target: CLUSTER_CAS, deadline: 'buildDeadline' },
  databases: { target: DATABASE_CAS, deadline: 'provisionDeadline' },
} as const;
export type BuildDeadline = keyof typeof BUILD_DEADLINES;

/** How often every worker beats the clock while PostgreSQL and Redis both answer it. */
export const WORK_CLOCK_BEAT_MS = 5_000;

/**
 * A beat this long after the last one means no worker could work in
 * between: every worker stopped, or PostgreSQL or Redis away. Three beats,
 * so a beat late on a loaded machine is not taken for one.
 */
export const STOOD_STILL_AFTER_MS = 3 * WORK_CLOCK_BEAT_MS;

/** How long a stand-still is kept: far longer than any wait measured across one. */
const STAND_STILLS_KEPT = '7 days';

export interface Beat {
  /** How long the control plane stood still before this beat; 0 when it did not. */
  stoodStillMs: number;
  /** The building rows whose deadline moved on by it. */
  moved: number;
}

/** The table, the deadline's column and the building status of `kind`, from the entity's metadata. */
function deadlineOf(dataSource: DataSource, kind: BuildDeadline): { table: string; column: string; building: string } {
  const { target, deadline } = BUILD_DEADLINES[kind];
  const meta = dataSource.getMetadata(target.entity);
  return { table: meta.tableName, column: meta.findColumnWithPropertyName(deadline)!.databaseName, building: creationStatus<string>(target.transitions) };
}

/**
 * Moves the work clock to now. After a stand-still, in the same transaction,
 * every build deadline moves on by it: by no more than the row's own age, as
 * a row created meanwhile (the api took creates while the workers were away)
 * waited only since then; and the stand-still is kept (standStillsSince).
 * The row lock makes workers that beat at once apply one stand-still once:
 * the second finds the clock already moved.
 */
export async function beatWorkClock(dataSource: DataSource, stoodStillAfterMs = STOOD_STILL_AFTER_MS): Promise<Beat> {
  return dataSource.transaction(async (manager) => {
    const [{ since }]: Array<{ since: string }> = await manager.query(`SELECT extract(epoch FROM now() - at) * 1000 AS since FROM work_clock FOR UPDATE`);
    const stoodStillMs = Number(since) > stoodStillAfterMs ? Number(since) : 0;
    let moved = 0;
    if (stoodStillMs > 0) {
      for (const kind of Object.keys(BUILD_DEADLINES) as BuildDeadline[]) {
        const { table, column, building } = deadlineOf(dataSource, kind);
        const [, count]: [unknown, number] = await manager.query(
          `UPDATE "${table}" SET "${column}" = "${column}" + LEAST(make_interval(secs => $1), GREATEST(now() - created_at, interval '0'))
           WHERE "${column}" IS NOT NULL AND status = $2`,
          [stoodStillMs / 1000, building],
        );
        moved += count;
      }
      await manager.query(`INSERT INTO work_clock_stand_stills (started_at, ended_at) SELECT at, now() FROM work_clock`);
      await manager.query(`DELETE FROM work_clock_stand_stills WHERE ended_at < now() - interval '${STAND_STILLS_KEPT}'`);
    }
    await manager.query(`UPDATE work_clock SET at = now()`);
    return { stoodStillMs: Math.round(stoodStillMs), moved };
  });
}

/** Whether the build of `id` is past its deadline now, as PostgreSQL has it. */
export async function pastBuildDeadline(dataSource: DataSource, kind: BuildDeadline, id: string | number): Promise<boolean> {
  const { table, column } = deadlineOf(dataSource, kind);
  const [row]: Array<{ past: boolean | null }> = await dataSource.query(`SELECT "${column}" < now() AS past FROM "${table}" WHERE id = $1`, [id]);
  return row?.past === true;
}

/** A time the control plane stood still, in ms since the epoch. */
export interface StandStill {
  from: number;
  to: number;
}

/** The stand-stills that ended after `since`, oldest first. */
export async function standStillsSince(dataSource: DataSource, since: Date): Promise<StandStill[]> {
  const rows: Array<{ from: Date; to: Date }> = await dataSource.query(
    `SELECT started_at AS "from", ended_at AS "to" FROM work_clock_stand_stills WHERE ended_at > $1 ORDER BY started_at`,
    [since],
  );
  return rows.map((r) => ({ from: r.from.getTime(), to: r.to.getTime() }));
}

/** How much of the time from `from` to `to` (ms) the control plane could work: all of it but the stand-stills within. */
export function workedMs(from: number, to: number, standStills: readonly StandStill[]): number {
  let worked = to - from;
  for (const s of standStills) worked -= Math.max(0, Math.min(s.to, to) - Math.max(s.from, from));
  return worked;
}
