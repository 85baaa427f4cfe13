import { AppConfig } from '../config/app.config';

/*
 * Every quota a project has: what it counts, in which unit, and its default.
 * A quota counts what the project holds now, read from the resource tables
 * (never a counter kept beside them, which a crash or a lost job would let
 * drift): rows not on their way out. A resource in error still counts until
 * it is deleted, as it still holds its name and, on most providers, its
 * capacity.
 */

export const QUOTA_NAMES = ['instances', 'databases', 'caches', 'analytics', 'relational_databases', 'volume_gb', 'gateway_routes', 'proxy_hosts'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

export interface QuotaRule {
  /** The configured default, when the project has no limit of its own. */
  defaultLimit(config: AppConfig): number;
  /** What `usage` counts, for messages ("instances", "GiB of volumes"). */
  unit: string;
  /**
   * `used`: the project's usage ($1 is the project id). `pending`: how many
   * of its resources of this kind still wait for the worker (the fair
   * scheduling rank of its next job), or 0 where jobs are not ranked.
   */
  sql: string;
}

const DATABASE_SQL = (...engines: string[]) =>
  `SELECT count(*) FILTER (WHERE engine IN (${engines.map((e) => `'${e}'`).join(', ')}) AND status <> 'deleting')::int AS used, ` +
  `count(*) FILTER (WHERE status = 'provisioning')::int AS pending FROM managed_databases WHERE project_id = $1`;

export const QUOTA_RULES: Readonly<Record<QuotaName, QuotaRule>> = {
  instances: {
    defaultLimit: (c) => c.QUOTA_INSTANCES,
    unit: 'instances',
    sql: `SELECT count(*) FILTER (WHERE status <> 'DELETING')::int AS used, count(*) FILTER (WHERE status = 'BUILD')::int AS pending FROM instances WHERE project_id = $1`,
  },
  // The databases queue is shared by every engine: a project's rank there counts all of them.
  databases: { defaultLimit: (c) => c.QUOTA_DATABASES, unit: 'databases', sql: DATABASE_SQL('postgres') },
  caches: { defaultLimit: (c) => c.QUOTA_CACHES, unit: 'cache instances', sql: DATABASE_SQL('redis') },
  analytics: { defaultLimit: (c) => c.QUOTA_ANALYTICS, unit: 'analytics instances', sql: DATABASE_SQL('clickhouse') },
  relational_databases: { defaultLimit: (c) => c.QUOTA_RELATIONAL_DATABASES, unit: 'relational databases', sql: DATABASE_SQL('mariadb', 'mysql') },
  volume_gb: {
    defaultLimit: (c) => c.QUOTA_VOLUME_GB,
    unit: 'GiB of volumes',
    sql: `SELECT coalesce(sum(size_gb) FILTER (WHERE status <> 'deleting'), 0)::int AS used, count(*) FILTER (WHERE status = 'creating')::int AS pending FROM volumes WHERE project_id = $1`,
  },
  gateway_routes: {
    defaultLimit: (c) => c.QUOTA_GATEWAY_ROUTES,
    unit: 'gateway routes',
    sql: `SELECT count(*)::int AS used, 0 AS pending FROM gateway_routes WHERE project_id = $1`,
  },
  proxy_hosts: { defaultLimit: (c) => c.QUOTA_PROXY_HOSTS, unit: 'proxy hosts', sql: `SELECT count(*)::int AS used, 0 AS pending FROM proxy_hosts WHERE project_id = $1` },
};

export function isQuotaName(name: string): name is QuotaName {
  return (QUOTA_NAMES as readonly string[]).includes(name);
}
