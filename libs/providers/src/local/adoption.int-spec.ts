import { waitFor } from '@stratus/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CgroupLimiter } from './cgroups';
import { ClickHouseEngine } from './databases/clickhouse.engine';
import { DATABASE_MARKER, LocalDatabaseDriver } from './databases/local-database.driver';
import { postgresAdmin } from './databases/local-databases';
import { PostgresEngine } from './databases/postgres.engine';
import { RedisEngine } from './databases/redis.engine';
import { HostAccounts } from './host-accounts';
import { installationId } from './installation';
import { LocalComputeDriver } from './local-compute.driver';
import { LocalImages } from './local-images';
import { INSTANCE_MARKER, markerValue } from './process-table';

/** `nobody`: a user that is neither an instance of ours nor our database user. */
const NOBODY = { uid: 65534, gid: 65534 };

const asRoot = process.getuid?.() === 0;

/**
 * Adoption from the process table: anyone can start a process group whose
 * environment carries a marker, so a process is taken for an instance or a
 * server only when the marker names this installation and the process runs
 * as the user the resource runs as.
 */
(asRoot ? describe : describe.skip)('adoption from the process table', () => {
  let root: string;
  let accounts: HostAccounts;
  const started: ChildProcess[] = [];

  /** A process group leader (as `user`) that carries `marker=value`. */
  const leader = (user: { uid: number; gid: number }, marker: string, value: string) => {
    const child = spawn('sleep', ['120'], { detached: true, stdio: 'ignore', ...user, env: { PATH: '/usr/bin:/bin', [marker]: value } });
    started.push(child);
    return child;
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'stratus-adoption-'));
    chmodSync(root, 0o755);
    accounts = new HostAccounts(installationId(root));
  });

  afterAll(async () => {
    for (const child of started) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    await accounts.removeAll();
  });

  it("an instance: not a process of another user carrying its marker, nor one of its user carrying another installation's", async () => {
    const driver = new LocalComputeDriver({
      instancesDir: join(root, 'instances'),
      accounts,
      limiter: new CgroupLimiter(join(root, 'no-cgroups')),
      images: new LocalImages(),
      bootTimeoutMs: 10_000,
    });
    const id = randomUUID();
    mkdirSync(join(root, 'instances', id));
    const user = await accounts.ensureInstanceUser(id);

    leader(NOBODY, INSTANCE_MARKER, markerValue(accounts.installation, id));
    leader(user, INSTANCE_MARKER, markerValue('00000000', id));
    await new Promise((r) => setTimeout(r, 200));
    expect(await driver.observe(id)).toMatchObject({ running: false, pid: null });

    // The same marker on a process of the instance's own user is the instance.
    const real = leader(user, INSTANCE_MARKER, markerValue(accounts.installation, id));
    const seen = await waitFor('the instance adopted', async () => ((await driver.observe(id))?.pid === real.pid ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(seen).toBe(true);
    await driver.delete(id);
  });

  it("a database server: not a process of another user carrying its marker, nor one of the database user carrying another installation's", async () => {
    const dir = join(root, 'databases');
    const driver = new LocalDatabaseDriver({
      dir,
      accounts,
      startTimeoutMs: 10_000,
      engines: { postgres: new PostgresEngine(join(root, 'templates'), postgresAdmin(root)), redis: new RedisEngine(), clickhouse: new ClickHouseEngine() },
    });
    mkdirSync(join(dir, 'postgres-1'), { recursive: true });
    const database = await accounts.databaseUser();

    leader(NOBODY, DATABASE_MARKER, markerValue(accounts.installation, 'postgres-1'));
    leader(database, DATABASE_MARKER, markerValue('00000000', 'postgres-1'));
    await new Promise((r) => setTimeout(r, 200));
    expect(await driver.observe('postgres-1')).toEqual({ running: false, ready: false, pid: null });

    const real = leader(database, DATABASE_MARKER, markerValue(accounts.installation, 'postgres-1'));
    await waitFor('the server adopted', async () => ((await driver.observe('postgres-1'))?.pid === real.pid ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    await driver.delete('postgres-1');
  });
});
