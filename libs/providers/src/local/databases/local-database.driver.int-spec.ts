import { sha256Hex } from '@stratus/core';
import { ensureUntilReady, listeningPortsOf, tcpConnectOutcome, waitFor } from '@stratus/testing';
import Redis from 'ioredis';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { isAlive, readStat } from '../process-table';
import { HostAccounts } from '../host-accounts';
import { installationId } from '../installation';
import { ClickHouseEngine } from './clickhouse.engine';
import { LocalDatabaseDriver } from './local-database.driver';
import { postgresAdmin } from './local-databases';
import { PostgresEngine } from './postgres.engine';
import { RedisEngine } from './redis.engine';

const PASSWORD = 'spare-spec-Passw0rd';

/** Addresses of this test slot's own (STRATUS_TEST_SLOT), out of every pool: suites of two slots may run this spec at once. */
const SLOT = Number(process.env.STRATUS_TEST_SLOT ?? 0);

function cacheSpec(n: number): DatabaseServerSpec {
  return {
    key: `redis-${n}`,
    engine: 'redis',
    version: '7',
    address: `127.121.${SLOT}.${n}`,
    port: 6379,
    dbName: null,
    dbUser: null,
    passwordVerifier: sha256Hex(PASSWORD),
    superuser: false,
    extensions: [],
    ha: false,
    memberAddresses: [],
  };
}

/** The spares in `dir` (folder name and pid) whose server runs. */
function runningSpares(dir: string): Array<{ key: string; pid: number }> {
  return readdirSync(dir)
    .filter((name) => name.startsWith('spare-redis-'))
    .map((key) => {
      try {
        return { key, pid: Number(readFileSync(join(dir, key, 'pid'), 'utf8').split(' ')[0]) };
      } catch {
        return { key, pid: 0 };
      }
    })
    .filter(({ pid }) => pid > 0 && isAlive(readStat(pid)));
}

async function roundTrip(spec: DatabaseServerSpec, password?: string): Promise<string | null> {
  const client = new Redis({ host: spec.address, port: spec.port, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    if (password) await client.auth(password);
    await client.set('k', 'v');
    return await client.get('k');
  } finally {
    client.disconnect();
  }
}

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

(hasRedis ? describe : describe.skip)('LocalDatabaseDriver spares (real Redis)', () => {
  let dir: string;
  let accounts: HostAccounts;
  let driver: LocalDatabaseDriver;
  const errors: string[] = [];
  const claims: string[] = [];

  const newDriver = () =>
    new LocalDatabaseDriver({
      dir,
      accounts,
      startTimeoutMs: 10_000,
      engines: { postgres: new PostgresEngine(join(dir, 'templates'), postgresAdmin(join(dir, '..'))), redis: new RedisEngine(), clickhouse: new ClickHouseEngine() },
    });

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'stratus-spares-'));
    // The database user must reach its servers' folders.
    chmodSync(root, 0o755);
    dir = join(root, 'databases');
    accounts = new HostAccounts(installationId(root));
    driver = newDriver();
    await driver.keepSpares(1, { error: (engine, err) => errors.push(`${engine}: ${err.message}`), claimed: (_, spare, key) => claims.push(`${spare} -> ${key}`) });
  });

  afterAll(async () => {
    await driver.close();
    for (const n of [1, 2, 3]) await driver.delete(`redis-${n}`);
    rmSync(join(dir, '..'), { recursive: true, force: true });
    // The installation of this spec goes with it, accounts and all.
    await accounts.removeAll();
  });

  it('keeps one started spare that no client can reach over TCP', async () => {
    const [spare] = runningSpares(dir);
    expect(runningSpares(dir)).toHaveLength(1);
    expect(spare.key).toBe(`spare-redis-${process.pid}-${readStat(process.pid)!.startTime}-1`);
    // No TCP listener at all: only its unix socket, in the run user's 0700 folder.
    expect(listeningPortsOf(spare.pid)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a create claims the spare: same process, on the address with the password, and a new spare follows', async () => {
    const [spare] = runningSpares(dir);
    const spec = cacheSpec(1);
    const observed = await driver.ensureRunning(spec);
    expect(observed).toEqual({ running: true, ready: true, pid: spare.pid });
    expect(claims).toEqual([`${spare.key} -> ${spec.key}`]);
    expect(listeningPortsOf(spare.pid)).toEqual([spec.port]);
    expect(existsSync(join(dir, spare.key))).toBe(false);
    expect(await roundTrip(spec, PASSWORD)).toBe('v');
    await expect(roundTrip(spec)).rejects.toThrow(/NOAUTH/);
    await expect(roundTrip(spec, 'wrong-password')).rejects.toThrow(/WRONGPASS/);

    const [next] = await waitFor('one running spare', () => runningSpares(dir).length === 1 && runningSpares(dir), { timeoutMs: 10_000, intervalMs: 20 });
    expect(next.key).not.toBe(spare.key);
    expect(errors).toEqual([]);
  });

  it('a claimed server that dies starts again with the same settings, from its own config', async () => {
    const spec = cacheSpec(1);
    const before = (await driver.observe(spec.key))!.pid!;
    process.kill(before, 'SIGKILL');
    await waitFor('the server gone', () => !isAlive(readStat(before)), { timeoutMs: 30_000, intervalMs: 20 });
    const after = await ensureUntilReady(driver, spec);
    expect(after.pid).not.toBe(before);
    expect(await roundTrip(spec, PASSWORD)).toBe('v');
    await expect(roundTrip(spec)).rejects.toThrow(/NOAUTH/);
    const conf = readFileSync(join(dir, spec.key, 'data', 'redis.conf'), 'utf8');
    expect(conf).toContain(`bind ${spec.address}`);
    expect(conf).not.toContain('unixsocket');
    expect(conf).not.toContain('nopass');
  });

  it('a spare that dies is replaced, and creates go on meanwhile', async () => {
    const [spare] = runningSpares(dir);
    process.kill(spare.pid, 'SIGKILL');
    const spec = cacheSpec(2);
    const observed = await ensureUntilReady(driver, spec);
    expect(observed.pid).not.toBe(spare.pid);
    expect(await roundTrip(spec, PASSWORD)).toBe('v');
    await waitFor('a new spare', () => runningSpares(dir).some((s) => s.key !== spare.key), { timeoutMs: 10_000, intervalMs: 20 });
  });

  it('delete stops a claimed server and frees its address', async () => {
    const spec = cacheSpec(2);
    await driver.delete(spec.key);
    expect(await tcpConnectOutcome(spec.address, spec.port)).toBe('ECONNREFUSED');
    expect(existsSync(join(dir, spec.key))).toBe(false);
  });

  it("a new driver removes the spares of a worker that is gone, and keeps another live worker's", async () => {
    const mine = runningSpares(dir);
    // A gone owner: the pid of a process that has exited.
    const gone = spawnSync('true').pid;
    const orphanDir = join(dir, `spare-redis-${gone}-0-1`);
    mkdirSync(orphanDir);
    const orphan = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    orphan.unref();
    writeFileSync(join(orphanDir, 'pid'), `${orphan.pid} ${readStat(orphan.pid!)!.startTime}\n`);

    const second = newDriver();
    await second.keepSpares(0, { error: () => undefined });
    await second.close();
    expect(existsSync(orphanDir)).toBe(false);
    await waitFor('the orphan gone', () => !isAlive(readStat(orphan.pid!)), { timeoutMs: 30_000, intervalMs: 20 });
    // The first driver (this process) is alive: its spare stays.
    expect(runningSpares(dir).map((s) => s.key)).toEqual(mine.map((s) => s.key));
  });

  it('an engine whose spare cannot start is tried three times, a second apart, then left without one', async () => {
    // Redis whose spare command exits at once.
    const redis = new RedisEngine();
    const spareless: RedisEngine = Object.assign(Object.create(redis), { spare: { ...redis.spare, command: () => ({ bin: '/bin/false', args: [] }) } });
    const reported: string[] = [];
    const broken = new LocalDatabaseDriver({
      dir,
      accounts,
      startTimeoutMs: 10_000,
      engines: { postgres: new PostgresEngine(join(dir, 'templates'), postgresAdmin(join(dir, '..'))), redis: spareless, clickhouse: new ClickHouseEngine() },
    });
    const before = runningSpares(dir).map((s) => s.key);
    await broken.keepSpares(1, { error: (engine, err) => reported.push(`${engine}: ${err.message}`) });
    expect(reported).toHaveLength(1);
    await waitFor('three failures', () => reported.length === 3, { timeoutMs: 30_000, intervalMs: 20 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(reported).toEqual(Array(3).fill(expect.stringMatching(/^redis: spare spare-redis-.* server exited while starting/)));
    expect(readdirSync(dir).filter((n) => n.startsWith('spare-'))).toEqual(before);
    await broken.close();
  });

  it('close stops the spares and leaves servers running', async () => {
    const spec = cacheSpec(3);
    await ensureUntilReady(driver, spec);
    await waitFor('one running spare', () => runningSpares(dir).length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    const [spare] = runningSpares(dir);
    await driver.close();
    expect(isAlive(readStat(spare.pid))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('spare-'))).toEqual([]);
    expect(await roundTrip(spec, PASSWORD)).toBe('v');
  });
});
