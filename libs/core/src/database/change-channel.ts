import { DataSource } from 'typeorm';

/**
 * Every insert, update and delete of a row of a listed table writes a row
 * to `change_events` (a trigger, migrations ListPages and ChangeEvents):
 * the table, the row's project, and the id of the transaction that wrote
 * it. Long polls wait on them (the api's change feed reads the events of
 * the transactions that committed since it last looked), so a change made
 * by any process, the worker's status moves and an operator's psql
 * included, wakes them once it commits, and a rollback never does.
 */
export const WATCHED_TABLES = ['instances', 'managed_databases', 'volumes', 'proxy_hosts'] as const;
export type WatchedTable = (typeof WATCHED_TABLES)[number];

/**
 * Change events are read within milliseconds of their commit; older ones go.
 * A transaction that stays open longer than this may wake nobody: the polls
 * it should have woken answer at their deadline, with its change.
 */
export const CHANGE_EVENTS_KEPT_MS = 60_000;

/** Removes the change events nobody reads any more; returns how many. */
export async function pruneChangeEvents(dataSource: DataSource, keptMs = CHANGE_EVENTS_KEPT_MS): Promise<number> {
  const [, removed] = await dataSource.query(`DELETE FROM change_events WHERE at < clock_timestamp() - make_interval(secs => $1)`, [keptMs / 1000]);
  return removed;
}
