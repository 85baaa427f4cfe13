import { sha256Hex } from '@stratus/core';
import { ensureUntilReady } from '@stratus/testing';
import Redis from 'ioredis';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { HostAccounts } from '../host-accounts';
import { installationId } from '../installation';
import { SystemPackages } from '../system-packages';
import { ClickHouseEngine } from './clickhouse.engine';
import { LocalDatabaseDriver } from './local-database.driver';
import { postgresAdmin } from './local-databases';
import { PostgresEngine } from './postgres.engine';
import { RedisEngine } from './redis.engine';

const SLOT = Number(process.env.STRATUS_TEST_SLOT ?? 0);
const PASSWORD = 'first-use-Passw0rd';

/** Redis as on a host without redis-server until the (fake) install ran: what the worker sees on a first cache. */
class NotYetInstalledRedis extends RedisEngine {
  present = false;
  async missing(spec: DatabaseServerSpec): Promise<string | null> {
    return this.present ? super.missing(spec) : 'Redis is not installed on this host (Debian package redis-server)';
  }
  packagesFor() {
    return this.present ? null : { packages: ['redis-server'], why: 'the first cache on this host' };
  }
}

const spec = (n: number): DatabaseServerSpec => ({
  key: `redis-${n}`,
  engine: 'redis',
  version: '7',
  address: `127.122.${SLOT}.${n}`,
  port: 6379,
  dbName: null,
  dbUser: null,
  passwordVerifier: sha256Hex(PASSWORD),
  superuser: false,
  extensions: [],
  ha: false,
  memberAddresses: [],
});

/**
 * The local database driver installs what an engine lacks on first use:
 * not ready, with the install as its step, until the install finished,
 * then the server starts as usual; where installs are refused, the create
 * fails at once saying what to install.
 */
describe('LocalDatabaseDriver: packages installed on first use', () => {
  let root: string;
  let accounts: HostAccounts;
  const drivers: LocalDatabaseDriver[] = [];

  function driverWith(redis: RedisEngine, packages: SystemPackages): LocalDatabaseDriver {
    const dir = join(root, 'databases');
    const driver = new LocalDatabaseDriver({
      dir,
      accounts,
      startTimeoutMs: 30_000,
      packages,
      engines: { postgres: new PostgresEngine(join(root, 'templates'), postgresAdmin(root)), redis, clickhouse: new ClickHouseEngine() },
    });
    drivers.push(driver);
    return driver;
  }

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'stratus-first-use-'));
    chmodSync(root, 0o755);
    accounts = new HostAccounts(installationId(root));
  });

  afterAll(async () => {
    for (const d of drivers) for (const n of [1, 2]) await d.delete(`redis-${n}`);
    rmSync(root, { recursive: true, force: true });
    await accounts.removeAll();
  });

  it('stays not ready with the install as its step, then starts the server once it is installed', async () => {
    const redis = new NotYetInstalledRedis();
    let finish!: () => void;
    const installs: string[][] = [];
    const packages = new SystemPackages(
      true,
      (names) => {
        installs.push(names);
        return new Promise<void>((resolve) => (finish = () => ((redis.present = true), resolve())));
      },
      true,
      true,
    );
    const driver = driverWith(redis, packages);

    const first = await driver.ensureRunning(spec(1));
    expect(first).toMatchObject({ running: false, ready: false, step: 'installing redis-server (the first cache on this host)' });
    // Asked again meanwhile: the same step, no second install.
    expect((await driver.ensureRunning(spec(1))).step).toBe(first.step);
    expect(installs).toEqual([['redis-server']]);

    finish();
    await packages.settled();
    await ensureUntilReady(driver, spec(1));
    const client = new Redis({ host: spec(1).address, port: 6379, password: PASSWORD, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await client.connect();
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('fails at once, saying what to install, where installs are refused', async () => {
    const driver = driverWith(new NotYetInstalledRedis(), new SystemPackages(false, () => Promise.resolve(), true, true));
    await expect(driver.ensureRunning(spec(2))).rejects.toThrow(
      'Redis is not installed on this host (Debian package redis-server); not installed on first use: SYSTEM_PACKAGES_INSTALL is false (apt-get install redis-server as root adds it)',
    );
  });
});
