import { EntityManager } from 'typeorm';
import { hotQuery } from '../database/hot-queries';
import { canTransition, IllegalTransitionError, Transitions } from './transitions';

export interface CasTarget<S extends string> {
  table: string;
  transitions: Transitions<S>;
}

/**
 * Moves one row from `from` to `to` only if it is still in `from` at
 * `generation`. Returns false when another actor got there first, so a late
 * or duplicated job can never move a resource backwards.
 */
export async function compareAndSet<S extends string>(
  manager: EntityManager,
  target: CasTarget<S>,
  id: string | number,
  from: S,
  to: S,
  generation: number,
  patch: Record<string, unknown> = {},
): Promise<boolean> {
  if (!canTransition(target.transitions, from, to)) throw new IllegalTransitionError(from, to);
  const columns = Object.keys(patch);
  const sets = columns.map((c, i) => `"${c}" = $${i + 5}`);
  const sql =
    `UPDATE "${target.table}" SET status = $1, updated_at = now()` +
    (sets.length ? `, ${sets.join(', ')}` : '') +
    ` WHERE id = $2 AND status = $3 AND generation = $4 RETURNING id`;
  const params = [to, id, from, generation, ...columns.map((c) => patch[c])];
  // Outside a transaction (a worker's status update, on the path to `ready`) it is a hot query.
  const rows = manager.queryRunner ? (await manager.query(sql, params))[0] : await hotQuery(manager.connection, sql, params);
  return Array.isArray(rows) ? rows.length === 1 : false;
}
