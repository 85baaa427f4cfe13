import { AppConfig, randomToken, readOrCreateSecret, scramSha256Verifier, secretsDir } from '@stratus/core';
import { join } from 'node:path';
import { LoadBalancerDriver } from '../../load-balancer.driver';
import { HostAccounts } from '../host-accounts';
import { SystemPackages } from '../system-packages';
import { ClickHouseEngine } from './clickhouse.engine';
import { MySqlFamilyEngine } from './mysql-family.engine';
import { LocalDatabaseDriver } from './local-database.driver';
import { PostgresAdmin, PostgresEngine } from './postgres.engine';
import { RedisEngine } from './redis.engine';

/** Where servers and templates live under DATA_DIR. */
export function localDatabaseDirs(dataDir: string): { servers: string; templates: string } {
  return { servers: join(dataDir, 'databases'), templates: join(dataDir, 'templates') };
}

/** The file (mode 0600, in the 0700 secrets folder) that holds the admin password of the installation's PostgreSQL servers. */
export function postgresAdminPasswordFile(dataDir: string): string {
  return join(secretsDir(dataDir), 'postgres-admin-password');
}

/**
 * The installation's PostgreSQL admin password: made once, kept where only
 * root reads it. Servers hold only its verifier.
 */
export function postgresAdmin(dataDir: string): PostgresAdmin {
  const password = readOrCreateSecret(postgresAdminPasswordFile(dataDir), () => randomToken(32)).trim();
  let verifier: Promise<string> | null = null;
  return { password, verifier: () => (verifier ??= scramSha256Verifier(password)) };
}

/** The local provider's database driver: PostgreSQL and ClickHouse (single or ha, behind `balancer`), Redis, MariaDB and MySQL servers on loopback addresses. */
export function createLocalDatabaseDriver(config: AppConfig, accounts: HostAccounts, balancer?: LoadBalancerDriver): LocalDatabaseDriver {
  const dirs = localDatabaseDirs(config.DATA_DIR);
  return new LocalDatabaseDriver({
    dir: dirs.servers,
    accounts,
    startTimeoutMs: config.DATABASE_START_TIMEOUT_MS,
    packages: new SystemPackages(config.SYSTEM_PACKAGES_INSTALL),
    balancer,
    templatesDir: dirs.templates,
    engines: {
      postgres: new PostgresEngine(dirs.templates, postgresAdmin(config.DATA_DIR)),
      redis: new RedisEngine(),
      clickhouse: new ClickHouseEngine(),
      mariadb: new MySqlFamilyEngine('mariadb', dirs.templates),
      mysql: new MySqlFamilyEngine('mysql', dirs.templates, config.MYSQL_SERVER_BIN),
    },
  });
}
