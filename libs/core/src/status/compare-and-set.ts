import { EntityManager, ObjectLiteral } from 'typeorm';
import { hotQuery } from '../database/hot-queries';
import { createToSettledSeconds } from '../metrics/metrics.registry';
import { canTransition, creationStatus, IllegalTransitionError, Transitions } from './transitions';

export interface CasTarget<S extends string, E extends ObjectLiteral> {
  entity: new () => E;
  transitions: Transitions<S>;
  /** The `kind` label of its create-to-settled time... */
  kind: string;
  /** ...or, for a table of several kinds, the column that tells them apart and the label of each value. */
  kindBy?: { column: string; labels: Readonly<Record<string, string>> };
}

/**
 * What a move writes besides status and updated_at: the entity's own
 * properties, so a renamed or mistyped column fails to compile rather than
 * in the database.
 */
export type CasPatch<E extends ObjectLiteral> = Partial<Omit<E, 'id' | 'status' | 'updatedAt'>>;

/**
 * Moves one row from `from` to `to` only if it is still in `from` at
 * `generation`. Returns false when another actor got there first, so a late
 * or duplicated job can never move a resource backwards.
 */
export async function compareAndSet<S extends string, E extends ObjectLiteral>(
  manager: EntityManager,
  target: CasTarget<S, E>,
  id: string | number,
  from: S,
  to: S,
  generation: number,
  patch: CasPatch<E> = {},
): Promise<boolean> {
  if (!canTransition(target.transitions, from, to)) throw new IllegalTransitionError(from, to);
  const meta = manager.connection.getMetadata(target.entity);
  const properties = Object.keys(patch).filter((p) => (patch as ObjectLiteral)[p] !== undefined);
  const columns = properties.map((p) => {
    const column = meta.findColumnWithPropertyName(p);
    if (!column) throw new Error(`${meta.name} has no column for ${p}`);
    return column;
  });
  const sets = columns.map((c, i) => `"${c.databaseName}" = $${i + 5}`);
  const sql =
    `UPDATE "${meta.tableName}" SET status = $1, updated_at = now()` +
    (sets.length ? `, ${sets.join(', ')}` : '') +
    ` WHERE id = $2 AND status = $3 AND generation = $4 RETURNING created_at` +
    (target.kindBy ? `, "${target.kindBy.column}" AS kind` : '');
  const values = columns.map((c, i) => {
    const value = (patch as ObjectLiteral)[properties[i]];
    // As insertTogether: pg would send a JS array as a PostgreSQL array, wrong for json.
    return c.type === 'jsonb' || c.type === 'json' ? JSON.stringify(value) : value;
  });
  const params = [to, id, from, generation, ...values];
  // Outside a transaction (a worker's status update, on the path to `ready`) it is a hot query.
  const rows = manager.queryRunner ? (await manager.query(sql, params))[0] : await hotQuery(manager.connection, sql, params);
  const moved: Array<{ created_at: Date; kind?: string }> = Array.isArray(rows) ? rows : [];
  if (moved.length !== 1) return false;
  observeSettled(target, from, to, moved[0]);
  return true;
}

/**
 * The one place a resource's create is seen to end: every status move passes
 * here. A move inside a transaction that then rolls back is counted anyway;
 * that is rare (a later statement of it failing) and one sample too many in
 * a histogram misleads nobody.
 */
function observeSettled<S extends string, E extends ObjectLiteral>(target: CasTarget<S, E>, from: S, to: S, row: { created_at: Date; kind?: string }): void {
  // A delete is not the create settling.
  if (from !== creationStatus(target.transitions) || /^delet/i.test(to)) return;
  const kind = target.kindBy ? (target.kindBy.labels[row.kind ?? ''] ?? target.kind) : target.kind;
  createToSettledSeconds.observe({ kind, outcome: to }, Math.max(0, Date.now() - new Date(row.created_at).getTime()) / 1000);
}
