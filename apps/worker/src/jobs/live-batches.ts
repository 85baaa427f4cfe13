import { columnOf, EntityClass, hotQuery, selectAll } from '@stratus/core';
import { DataSource, ObjectLiteral } from 'typeorm';

/** Rows a sweep reads and acts on at a time. */
export const SWEEP_BATCH = 500;

/**
 * The rows of `entity` in `statuses`, a batch at a time in id order, each
 * batch read from where the last ended (a keyset on the primary key, on the
 * table's partial index of live rows): reading a batch costs the same at the
 * end of a large table as at its start, and a sweep holds one batch, not
 * every live row, in memory. A row that changes status meanwhile is seen by
 * the next sweep if not by this one, as level-based repair expects.
 */
export async function* liveBatches<E extends ObjectLiteral>(dataSource: DataSource, entity: EntityClass, statuses: string[], batch = SWEEP_BATCH): AsyncGenerator<E[]> {
  const id = columnOf(dataSource, entity, 'id');
  // Written out, not a parameter: the planner then sees that the partial index of live rows covers the query.
  if (!statuses.every((s) => /^[A-Za-z-]+$/.test(s))) throw new Error(`not a status: ${statuses.join(', ')}`);
  const live = `${columnOf(dataSource, entity, 'status')} IN (${statuses.map((s) => `'${s}'`).join(', ')})`;
  const first = `${selectAll(dataSource, entity)} WHERE ${live} ORDER BY ${id} LIMIT $1`;
  const next = `${selectAll(dataSource, entity)} WHERE ${live} AND ${id} > $2 ORDER BY ${id} LIMIT $1`;
  let after: unknown = undefined;
  for (;;) {
    const rows = await hotQuery<E>(dataSource, after === undefined ? first : next, after === undefined ? [batch] : [batch, after]);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1].id;
  }
}
