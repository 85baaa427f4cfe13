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
