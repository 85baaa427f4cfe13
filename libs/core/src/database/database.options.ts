import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { IdempotentCommits } from '../idempotency/idempotency-keys';
import { ENTITIES } from './entities';

/**
 * A process's DATABASE_POOL_MAX and MIN are its total: half for TypeORM's
 * pool, half for the hot statements' own (hot-queries.ts builds it from
 * these same options), so the two pools together stay within what the
 * operator set against PostgreSQL's max_connections.
 */
function half(connections: number): number {
  return Math.ceil(connections / 2);
}

/** Schema changes only through generated migrations; never `synchronize`. */
export function dataSourceOptions(config: AppConfig, applicationName = 'stratus'): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    subscribers: [IdempotentCommits],
    migrations: [join(__dirname, '..', 'migrations', '*.{js,ts}')],
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    // pg closes idle connections after 10 s; a burst after a quiet spell (a create's
    // lookups run in parallel) then waits for new backends (bench/README.md): DATABASE_POOL_MIN
    // stay open. A connection (new, or a free one of the pool) not had in 20 s fails
    // the request with a 503 rather than holding it while PostgreSQL is out of reach.
    // Not shorter: pg's one timeout covers waiting for a busy pool too, and a burst of
    // creates on a loaded machine waited over 5 s for a free connection (a refused
    // connect fails at once whatever this says).
    extra: {
      max: half(config.DATABASE_POOL_MAX),
      min: half(Math.min(config.DATABASE_POOL_MIN, config.DATABASE_POOL_MAX)),
      application_name: applicationName,
      connectionTimeoutMillis: 20_000,
    },
  };
}
