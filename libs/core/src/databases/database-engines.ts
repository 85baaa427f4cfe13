/**
 * The three managed database engines and what SPEC.md allows for each. The
 * API validates against these lists; the provider maps them to what it runs.
 */
export const DATABASE_ENGINES = ['postgres', 'redis', 'clickhouse'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

/** Each engine by the name of its collection (/v1/databases, /v1/cache, /v1/analytics), as metrics label it. */
export const ENGINE_KINDS: Readonly<Record<DatabaseEngine, string>> = { postgres: 'database', redis: 'cache', clickhouse: 'analytics' };

export const POSTGRES_VERSIONS = ['16', '15', '14'] as const;
export const REDIS_VERSIONS = ['7', '6'] as const;

/** Standard port of each engine; every server has its own address, so all use it. */
export const ENGINE_PORTS: Readonly<Record<DatabaseEngine, number>> = { postgres: 5432, redis: 6379, clickhouse: 8123 };

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
