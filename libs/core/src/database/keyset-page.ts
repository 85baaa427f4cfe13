import { DataSource, ObjectLiteral } from 'typeorm';
import { Invalid } from '../errors/domain-errors';
import { columnOf, hotQuery, selectAll } from './hot-queries';
import { intId } from './int-id';

/**
 * Keyset pages of a project's resources, newest first: ordered by
 * (created_at, id) descending, each page the rows strictly after the last
 * one of the previous page. A row inserted meanwhile is newer than every row
 * already listed, so it never shifts a later page (no repeats, no gaps), and
 * the last page costs what the first does: an index range from the key, never
 * an OFFSET that reads and drops everything before it.
 */

/** Where a page starts: the sort key of the last row of the previous page. */
export interface PageKey {
  /** created_at in UTC as `YYYY-MM-DD HH:MM:SS.ffffff+00`: microseconds kept, which a JS Date would drop. */
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit: number;
  after?: PageKey | null;
  /** Exact match. */
  status?: string;
  /** Exact match. */
  name?: string;
}

export interface RowsPage<E> {
  rows: E[];
  /** The key to ask the next page after; null on the last page. */
  next: PageKey | null;
}

/** A key's created_at as keysetPage writes it, and nothing else: a cursor is checked before it reaches SQL. */
const TIMESTAMPTZ = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const KEY_ALIAS = '__createdAtText';

/**
 * One page of `entity`'s rows matching `scope` (property = value, or one of
 * the values of an array, ANDed; an undefined value is left out) and the filters. The id column's type (uuid or
 * int) decides what a key's id must look like; a key that does not fit is a
 * 400 on `cursor`, never an SQL error.
 */
export async function keysetPage<E extends ObjectLiteral>(
  dataSource: DataSource,
  entity: new () => E,
  scope: Partial<Record<keyof E & string, unknown>>,
  request: PageRequest,
): Promise<RowsPage<E>> {
  const meta = dataSource.getMetadata(entity);
  const idColumn = meta.primaryColumns[0];
  const idIsUuid = idColumn.type === 'uuid';
  const col = (property: string) => columnOf(dataSource, entity, property);
  const params: unknown[] = [];
  const where: string[] = [];
  for (const [property, value] of Object.entries(scope)) {
    if (value === undefined) continue;
    params.push(value);
    // A list is any of its values (the relational collection's two engines).
    where.push(Array.isArray(value) ? `${col(property)} = ANY($${params.length})` : `${col(property)} = $${params.length}`);
  }
  if (request.status !== undefined) {
    params.push(request.status);
    where.push(`${col('status')} = $${params.length}`);
  }
  if (request.name !== undefined) {
    params.push(request.name);
    where.push(`${col('name')} = $${params.length}`);
  }
  if (request.after) {
    const { createdAt, id } = request.after;
    const key = idIsUuid ? (UUID.test(id) ? id : null) : intId(id);
    if (!TIMESTAMPTZ.test(createdAt) || key === null) throw new Invalid('cursor', 'not a cursor this API issued');
    params.push(createdAt, key);
    where.push(`(${col('createdAt')}, ${col('id')}) < ($${params.length - 1}::timestamptz, $${params.length}::${idIsUuid ? 'uuid' : 'int'})`);
  }
  params.push(request.limit + 1);
  const sql =
    // UTC to the microsecond, spelled the same whatever the session's TimeZone and DateStyle.
    `${selectAll(dataSource, entity).replace(/ FROM /, `, to_char(${col('createdAt')} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS "${KEY_ALIAS}" FROM `)}` +
    `${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${col('createdAt')} DESC, ${col('id')} DESC LIMIT $${params.length}`;
  const found = await hotQuery<E & { [KEY_ALIAS]: string }>(dataSource, sql, params);
  const more = found.length > request.limit;
  const rows = more ? found.slice(0, request.limit) : found;
  const last = rows[rows.length - 1];
  const next = more ? { createdAt: last[KEY_ALIAS], id: String(last.id) } : null;
  for (const row of rows) delete (row as Partial<typeof row>)[KEY_ALIAS];
  return { rows, next };
}
