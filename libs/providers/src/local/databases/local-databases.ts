import { AppConfig } from '@stratus/core';
import { join } from 'node:path';
import { ensureRunUser } from '../run-user';
import { ClickHouseEngine } from './clickhouse.engine';
import { LocalDatabaseDriver } from './local-database.driver';
import { PostgresEngine } from './postgres.engine';
import { RedisEngine } from './redis.engine';

/** Where servers and templates live under DATA_DIR. */
export function localDatabaseDirs(dataDir: string): { servers: string; templates: string } {
  return { servers: join(dataDir, 'databases'), templates: join(dataDir, 'templates') };
}

/** The local provider's database driver: PostgreSQL, Redis and ClickHouse servers on loopback addresses. */
export function createLocalDatabaseDriver(config: AppConfig): LocalDatabaseDriver {
  const dirs = localDatabaseDirs(config.DATA_DIR);
  return new LocalDatabaseDriver({
    dir: dirs.servers,
    runAs: ensureRunUser(config.LOCAL_RUN_USER),
    startTimeoutMs: config.DATABASE_START_TIMEOUT_MS,
    engines: { postgres: new PostgresEngine(dirs.templates), redis: new RedisEngine(), clickhouse: new ClickHouseEngine() },
  });
}
