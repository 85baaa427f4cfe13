import { Pool, PoolConfig } from 'pg';
import { DataSource, EntityManager, ObjectLiteral, QueryFailedError } from 'typeorm';
import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

/*
 * Statements on the paths clients hit most (listing pages, the status a
 * client polls, the create a client then waits on) skip TypeORM's query
 * builder and query runner: their SQL is built from the entity's metadata
 * and sent to a pg pool as is, for a fraction of the CPU of `findOneBy`,
 * `save` or `DataSource.query` (bench/README.md). Rows come back as plain
 * objects under the entity's property names, with pg's parsing of each type
 * (timestamps as Date, json parsed): all that presenters read.
 */

/** A class of an entity, as `getMetadata` takes it. */
export type EntityClass = new () => ObjectLiteral;

const pools = new WeakMap<DataSource, Pool>();

/**
 * The pool hot statements go to: pg's own, made on first use from the data
 * source's options (the same URL and `extra`: size, application name,
 * connect timeout), not TypeORM's, whose pool is no public API. So a process
 * that uses them has two pools, each of half its DATABASE_POOL_MAX
 * (database.options.ts).
 */
function hotPool(dataSource: DataSource): Pool {
  let pool = pools.get(dataSource);
  if (!pool) {
    const options = dataSource.options as PostgresConnectionOptions;
    pool = new Pool({
      connectionString: options.url,
      host: options.host,
      port: options.port,
      user: options.username,
      password: typeof options.password === 'string' ? options.password : undefined,
      database: options.database,
      ssl: options.ssl as PoolConfig['ssl'],
      ...(options.extra as object),
      // Never what keeps a process alive: a script or suite that destroyed its
      // data source ends without waiting for these idle connections to time out.
      allowExitOnIdle: true,
    });
    // A connection PostgreSQL closed while idle (restart, pg_terminate_backend):
    // pg drops it and the next statement opens another. Unheard, it would end the process.
    pool.on('error', () => undefined);
    pools.set(dataSource, pool);
    closesWithDataSource(dataSource);
  }
  return pool;
}

const wrapped = new WeakSet<DataSource>();

/**
 * The hot pool lives as long as its data source: whoever destroys the data
 * source (Nest at shutdown, a suite, the setup script) closes it too, without
 * knowing it exists. Else its DATABASE_POOL_MIN connections would stay open
 * for the life of the process, one set per data source a test run made.
 */
function closesWithDataSource(dataSource: DataSource): void {
  if (wrapped.has(dataSource)) return;
  wrapped.add(dataSource);
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    const pool = pools.get(dataSource);
    pools.delete(dataSource);
    await pool?.end();
    return destroy();
  };
}

const selects = new WeakMap<DataSource, Map<EntityClass, string>>();

/** `SELECT <every column AS its property> FROM <table>`, built once; the caller appends WHERE and the rest. */
export function selectAll(dataSource: DataSource, entity: EntityClass): string {
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
export function columnOf(dataSource: DataSource, entity: EntityClass, property: string): string {
  return `"${dataSource.getMetadata(entity).findColumnWithPropertyName(property)!.databaseName}"`;
}

/**
 * Runs one statement on the data source's hot pool; `E` types its rows. It
 * fails as TypeORM's statements do, with pg's error wrapped in a
 * QueryFailedError (its values left out: they are the caller's to log): so
 * whoever reads a failure, as of our own database, reads one kind
 * (looksLikePostgresUnreachable, isUniqueViolation).
 */
export async function hotQuery<E extends ObjectLiteral>(dataSource: DataSource, sql: string, params: unknown[]): Promise<E[]> {
  try {
    return (await hotPool(dataSource).query<E>(sql, params)).rows;
  } catch (err) {
    throw new QueryFailedError(sql, undefined, err as Error);
  }
}

const finds = new WeakMap<DataSource, Map<string, string>>();

/**
 * `findOneBy` the hot way: `where` as TypeORM takes it, one object (its
 * fields ANDed) or a list of them (ORed), compared with `=`. The SQL is built
 * once per entity and shape of `where`.
 */
export async function hotFindOne<E extends ObjectLiteral>(dataSource: DataSource, entity: new () => E, where: Partial<E> | Array<Partial<E>>): Promise<E | undefined> {
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
  const [row] = await hotQuery<E>(dataSource, sql, params);
  return row;
}

/** One row for `insertTogether`: its entity and the properties to write (the rest take their column defaults). */
export interface RowInsert<E extends ObjectLiteral = ObjectLiteral> {
  entity: new () => E;
  values: Partial<E>;
}

type Rows<T extends readonly RowInsert[]> = { [K in keyof T]: T[K] extends RowInsert<infer E> ? E : never };

/**
 * Inserts one row into each of several tables in a single statement
 * (`WITH i0 AS (INSERT ...), i1 AS (INSERT ...) SELECT ...`): one round trip
 * instead of BEGIN, an INSERT each and COMMIT, and atomic without a
 * transaction, since a statement's data-modifying CTEs all take effect or
 * none does. (The managed database create used it for its row and outbox
 * entry until quotas made it count between the two: insertTogetherIn.)
 * Returns each row as inserted (defaults filled in) under the
 * entity's property names, with pg's parsing of each type, in the order given.
 * Not for a create the api answers: the commit of its transaction is what
 * marks its `Idempotency-Key` (IdempotentCommits).
 */
export async function insertTogether<T extends readonly RowInsert[]>(dataSource: DataSource, inserts: readonly [...T]): Promise<Rows<T>> {
  const { sql, params } = insertTogetherSql(dataSource, inserts);
  const [joined] = await hotQuery<ObjectLiteral>(dataSource, sql, params);
  return splitRows(inserts, joined) as Rows<T>;
}

/**
 * The same statement inside the caller's transaction (TypeORM's manager):
 * for a create that must do more before it commits (a quota's count).
 */
export async function insertTogetherIn<T extends readonly RowInsert[]>(manager: EntityManager, inserts: readonly [...T]): Promise<Rows<T>> {
  const { sql, params } = insertTogetherSql(manager.connection, inserts);
  const [joined] = await manager.query(sql, params);
  return splitRows(inserts, joined) as Rows<T>;
}

function insertTogetherSql(dataSource: DataSource, inserts: readonly RowInsert[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const ctes = inserts.map(({ entity, values }, i) => {
    const meta = dataSource.getMetadata(entity);
    const written = meta.columns.filter((c) => (values as ObjectLiteral)[c.propertyName] !== undefined);
    const placeholders = written.map((c) => {
      const value = (values as ObjectLiteral)[c.propertyName];
      // pg sends a JS array as a PostgreSQL array: right for text[], wrong for json.
      params.push(c.type === 'jsonb' || c.type === 'json' ? JSON.stringify(value) : value);
      return `$${params.length}`;
    });
    const returning = meta.columns.map((c) => `"${c.databaseName}" AS "${i}.${c.propertyName}"`).join(', ');
    return `i${i} AS (INSERT INTO "${meta.tableName}" (${written.map((c) => `"${c.databaseName}"`).join(', ')}) ` + `VALUES (${placeholders.join(', ')}) RETURNING ${returning})`;
  });
  return { sql: `WITH ${ctes.join(', ')} SELECT * FROM ${inserts.map((_, i) => `i${i}`).join(', ')}`, params };
}

function splitRows(inserts: readonly RowInsert[], joined: ObjectLiteral): ObjectLiteral[] {
  const rows: ObjectLiteral[] = inserts.map(() => ({}));
  for (const [alias, value] of Object.entries(joined)) {
    const dot = alias.indexOf('.');
    rows[Number(alias.slice(0, dot))][alias.slice(dot + 1)] = value;
  }
  return rows;
}
