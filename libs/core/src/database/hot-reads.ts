import { Pool } from 'pg';
import { DataSource, ObjectLiteral } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/*
 * Reads on the paths clients hit most (listing pages, the status a client
 * polls) skip TypeORM's query builder and query runner: their SQL is built
 * once per entity from its metadata and sent to the driver's pg pool as is,
 * for a fraction of the CPU of `findOneBy` or `DataSource.query`
 * (bench/README.md). Rows come back as plain objects under the entity's
 * property names, with pg's parsing of each type (timestamps as Date, json
 * parsed): all that presenters read.
 */

const selects = new WeakMap<DataSource, Map<Function, string>>();

/** `SELECT <every column AS its property> FROM <table>`, built once; the caller appends WHERE and the rest. */
export function selectAll(dataSource: DataSource, entity: Function): string {
  let byEntity = selects.get(dataSource);
  if (!byEntity) selects.set(dataSource, (byEntity = new Map()));
  let sql = byEntity.get(entity);
  if (!sql) {
    const meta = dataSource.getMetadata(entity);
    sql = `SELECT ${meta.columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`).join(', ')} FROM "${meta.tableName}"`;
    byEntity.set(entity, sql);
  }
  return sql;
}

/** The quoted column of an entity's property, for WHERE and ORDER BY. */
export function columnOf(dataSource: DataSource, entity: Function, property: string): string {
  return `"${dataSource.getMetadata(entity).findColumnWithPropertyName(property)!.databaseName}"`;
}

/** Runs one statement on the driver's pool; `entity` only types the rows. */
export async function hotRead<E extends ObjectLiteral>(dataSource: DataSource, _entity: new () => E, sql: string, params: unknown[]): Promise<E[]> {
  const pool: Pool = (dataSource.driver as PostgresDriver).master;
  return (await pool.query<E>(sql, params)).rows;
}

const finds = new WeakMap<DataSource, Map<string, string>>();

/**
 * `findOneBy` the hot way: `where` as TypeORM takes it, one object (its
 * fields ANDed) or a list of them (ORed), compared with `=`. The SQL is built
 * once per entity and shape of `where`.
 */
export async function hotFindOne<E extends ObjectLiteral>(
  dataSource: DataSource,
  entity: new () => E,
  where: Partial<E> | Array<Partial<E>>,
): Promise<E | undefined> {
  const alternatives = (Array.isArray(where) ? where : [where]).map((w) => Object.keys(w));
  const shape = `${entity.name}:${alternatives.map((keys) => keys.join(',')).join('|')}`;
  let byShape = finds.get(dataSource);
  if (!byShape) finds.set(dataSource, (byShape = new Map()));
  let sql = byShape.get(shape);
  if (!sql) {
    let n = 0;
    const or = alternatives.map((keys) => {
      const and = keys.map((k) => `${columnOf(dataSource, entity, k)} = $${++n}`).join(' AND ');
      return alternatives.length > 1 && keys.length > 1 ? `(${and})` : and;
    });
    sql = `${selectAll(dataSource, entity)} WHERE ${or.join(' OR ')} LIMIT 1`;
    byShape.set(shape, sql);
  }
  const params = (Array.isArray(where) ? where : [where]).flatMap((w) => Object.values(w));
  const [row] = await hotRead(dataSource, entity, sql, params);
  return row;
}
