/**
 * The managed database engines and what SPEC.md (and docs/decisions.md, for
 * the relational collection) allows for each. The API validates against
 * these lists; the provider maps them to what it runs.
 */
export const DATABASE_ENGINES = ['postgres', 'redis', 'clickhouse', 'mariadb', 'mysql'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

/** Each engine by the name of its collection (/v1/databases, /v1/cache, /v1/analytics, /v1/relational-databases), as metrics label it. */
export const ENGINE_KINDS: Readonly<Record<DatabaseEngine, string>> = {
  postgres: 'database',
  redis: 'cache',
  clickhouse: 'analytics',
  mariadb: 'relational-database',
  mysql: 'relational-database',
};

export const POSTGRES_VERSIONS = ['16', '15', '14'] as const;
export const REDIS_VERSIONS = ['7', '6'] as const;

/** The engines of /v1/relational-databases: one collection, the engine a field of each server. */
export const RELATIONAL_ENGINES = ['mariadb', 'mysql'] as const;
export type RelationalEngine = (typeof RELATIONAL_ENGINES)[number];

/** Versions of each relational engine, the default first: the LTS lines people ask a cloud for. */
export const RELATIONAL_VERSIONS: Readonly<Record<RelationalEngine, readonly string[]>> = {
  mariadb: ['10.11', '11.4'],
  mysql: ['8.0', '8.4'],
};

/** Standard port of each engine; every server has its own address, so all use it. */
export const ENGINE_PORTS: Readonly<Record<DatabaseEngine, number>> = { postgres: 5432, redis: 6379, clickhouse: 8123, mariadb: 3306, mysql: 3306 };

/** SPEC.md's twelve extension names, canonical form. */
export const POSTGRES_EXTENSIONS = [
  'pgvector',
  'postgis',
  'pgaudit',
  'pg_stat_statements',
  'hstore',
  'pg_trgm',
  'uuid-ossp',
  'citext',
  'pgcrypto',
  'ltree',
  'btree_gin',
  'btree_gist',
] as const;
export type PostgresExtension = (typeof POSTGRES_EXTENSIONS)[number];

/** Accepted spellings that are not canonical; the canonical name is what is stored. */
export const POSTGRES_EXTENSION_ALIASES: Readonly<Record<string, PostgresExtension>> = { vector: 'pgvector' };

/** Canonical name, or null for a name that is neither allowed nor an alias. */
export function canonicalExtension(name: string): PostgresExtension | null {
  if ((POSTGRES_EXTENSIONS as readonly string[]).includes(name)) return name as PostgresExtension;
  return POSTGRES_EXTENSION_ALIASES[name] ?? null;
}

/** The name PostgreSQL itself knows the extension by (CREATE EXTENSION, the .control file). */
export function sqlExtensionName(extension: PostgresExtension): string {
  return extension === 'pgvector' ? 'vector' : extension;
}

/** Extensions that only work when loaded at server start. */
export const PRELOADED_EXTENSIONS: readonly PostgresExtension[] = ['pg_stat_statements', 'pgaudit'];
