import { AddressLease, sha256Hex } from '@stratus/core';
import { createUntilReady, driverContract, killDatabaseServersUnder, killInstancesUnder, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { InstanceSpec } from '../compute.driver';
import { DatabaseServerSpec } from '../databases.driver';
import { CgroupLimiter, installationCgroups } from './cgroups';
import { HostAccounts } from './host-accounts';
import { installationId } from './installation';
import { LocalComputeDriver } from './local-compute.driver';
import { LocalImages } from './local-images';
import { LocalSnapshots } from './local-snapshots';
import { LocalNetworkDriver } from './local-network.driver';
import { LocalVolumeDriver } from './local-volume.driver';
import { isAlive, readStat, scanInstanceLeaders, scanMarkedLeaders } from './process-table';
import { ClickHouseEngine } from './databases/clickhouse.engine';
import { DATABASE_MARKER, LocalDatabaseDriver } from './databases/local-database.driver';
import { postgresAdmin } from './databases/local-databases';
import { PostgresEngine } from './databases/postgres.engine';
import { RedisEngine } from './databases/redis.engine';

const run = promisify(execFile);

/** Addresses of this test slot's own, out of every pool: suites of two slots may run this spec at once. */
const NET = `127.123.${Number(process.env.STRATUS_TEST_SLOT ?? 0)}`;

const asRoot = process.getuid?.() === 0;

// The address leases in a throwaway schema on the local PostgreSQL.
const url = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `contract_spec_${process.pid}`;

/**
 * The driver contract against the local provider: real instance processes
 * as users of their own, real volume files. Halfway states are the ones a
 * worker killed mid-operation really leaves, made by hand (nothing else
 * stops the driver between two of its steps).
 */
(asRoot ? describe : describe.skip)('the local provider', () => {
  let root: string;
  let accounts: HostAccounts;
  let compute: LocalComputeDriver;
  let volumes: LocalVolumeDriver;
  let databases: LocalDatabaseDriver;
  let leases: DataSource;
  let network: LocalNetworkDriver;
  let n = 0;
  let networks = 0;

  const spec = (overrides: Partial<InstanceSpec> = {}): InstanceSpec => ({
    id: randomUUID(),
    imageId: 'demo-web',
    address: `${NET}.${++n}`,
    port: 3000,
    userData: null,
    flavor: { vcpus: 1, ramMb: 512 },
    ...overrides,
  });

  // Redis: the quickest engine to start, and one the host has wherever the e2e suites run.
  const databaseSpec = (): DatabaseServerSpec => ({
    key: `redis-${++n}`,
    engine: 'redis',
    version: '7',
    address: `${NET}.${n}`,
    port: 6379,
    dbName: null,
    dbUser: null,
    passwordVerifier: sha256Hex(randomUUID()),
    superuser: false,
    extensions: [],
    ha: false,
    memberAddresses: [],
  });

  const leaders = (id: string) => scanInstanceLeaders(accounts.installation).get(id) ?? [];

  /** A file of the instance's home as its own user reads it; null when it cannot. */
  const readAsInstance = async (id: string, path: string): Promise<string | null> => {
    const user = accounts.instanceUser(id);
    if (!user) return null;
    try {
      return (await run('cat', ['--', join(root, 'instances', id, 'home', path)], { uid: user.uid, gid: user.gid })).stdout;
    } catch {
      return null;
    }
  };

  /** Every path under `dir` (links not followed), relative to it. */
  const walk = (dir: string, prefix = ''): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      const rel = join(prefix, entry);
      return lstatSync(path).isDirectory() ? [rel, ...walk(path, rel)] : [rel];
    });

  beforeAll(async () => {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    leases = await new DataSource({ type: 'postgres', url, schema, entities: [AddressLease], extra: { options: `-c search_path=${schema}` } }).initialize();
    // The table as the entity (and so the migrations) define it.
    await leases.synchronize();
    network = new LocalNetworkDriver(() => leases);
    root = mkdtempSync(join(tmpdir(), 'stratus-contract-'));
    // Instance users pass through it to their homes.
    chmodSync(root, 0o755);
    accounts = new HostAccounts(installationId(root));
    const instancesDir = join(root, 'instances');
    compute = new LocalComputeDriver({
      instancesDir,
      accounts,
      // No cgroups: flavors are not what this suite is about, and it leaves none behind.
      limiter: new CgroupLimiter(join(root, 'no-cgroups')),
      images: new LocalImages(undefined, new LocalSnapshots(join(root, 'snapshots'))),
      bootTimeoutMs: 60_000,
    });
    volumes = new LocalVolumeDriver({ volumesDir: join(root, 'volumes'), instancesDir, accounts });
    databases = new LocalDatabaseDriver({
      dir: join(root, 'databases'),
      accounts,
      startTimeoutMs: 30_000,
      engines: { postgres: new PostgresEngine(join(root, 'templates'), postgresAdmin(root)), redis: new RedisEngine(), clickhouse: new ClickHouseEngine() },
    });
  });

  /** Listeners that hold a server's address and port, so that it exits while starting. */
  const squatters: Server[] = [];

  afterAll(async () => {
    for (const squatter of squatters) squatter.close();
    await leases?.query(`DROP SCHEMA ${schema} CASCADE`);
    await leases?.destroy();
    await killInstancesUnder(join(root, 'instances'));
    killDatabaseServersUnder(root);
    await accounts.removeAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('a boot not ready within the boot timeout is removed, then a terminal error', async () => {
    const impatient = new LocalComputeDriver({
      instancesDir: join(root, 'instances'),
      accounts,
      limiter: new CgroupLimiter(join(root, 'no-cgroups')),
      images: new LocalImages(),
      bootTimeoutMs: 1_000,
    });
    // user_data runs before the image counts as booted: this one never gets there.
    const s = spec({ imageId: 'plain', userData: 'sleep 600\n' });
    expect(await impatient.create(s)).toMatchObject({ running: true, ready: false });
    const err = await waitFor(
      'the boot timeout',
      async () => {
        try {
          await impatient.create(s);
          return false;
        } catch (e) {
          return e as Error;
        }
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(err.message).toMatch(/^boot failed: not ready within 1000 ms/);
    expect(await impatient.observe(s.id)).toBeNull();
    expect(leaders(s.id)).toHaveLength(0);
  });

  it('usage: with cgroups, the cgroup counts what /proc counts of the instance', async () => {
    // The host's cgroups, under this test installation's own parent group.
    const limiter = installationCgroups(accounts.installation);
    if (!limiter.enforced) return console.warn(`cgroups not usable here (${limiter.reason}): case skipped`);
    const grouped = new LocalComputeDriver({ instancesDir: join(root, 'instances'), accounts, limiter, images: new LocalImages(), bootTimeoutMs: 60_000 });
    const s = spec();
    try {
      await createUntilReady(grouped, s, 60_000);
      const res = await fetch(`http://${s.address}:${s.port}/load?percent=80&seconds=5`, { method: 'POST' });
      expect(res.status).toBe(200);
      // Give the load time to add up to something both counters see.
      await waitFor('some CPU time', () => (limiter.cpuSeconds(s.id) ?? 0) > 0.3, { timeoutMs: 30_000, intervalMs: 100 });
      const fromGroup = (await grouped.usage([s.id])).get(s.id)!;
      const fromProc = (await compute.usage([s.id])).get(s.id)!;
      expect(limiter.cpuSeconds(s.id)).not.toBeNull();
      // Read a moment apart, while the instance burns 0.8 of a core.
      expect(Math.abs(fromGroup.cpuSeconds - fromProc.cpuSeconds)).toBeLessThan(0.15 + 0.1 * fromProc.cpuSeconds);
    } finally {
      await grouped.delete(s.id);
      limiter.removeParent();
    }
    expect(limiter.cpuSeconds(s.id)).toBeNull();
  });

  it("a snapshot is root's alone and holds what the instance may read of its home, without the platform's files or what gives more rights", async () => {
    const secret = `secret-${randomUUID()}`;
    const volume = randomUUID();
    const source = spec({
      imageId: 'plain',
      userData: [
        `# a token only this instance's user_data holds: ${secret}`,
        'echo kept > kept.txt',
        'mkdir -p sub && echo deep > sub/deep.txt',
        'ln -s kept.txt link',
        'ln -s /etc/shadow shadow-link',
        'mkfifo pipe',
        "printf '#!/bin/sh\\n' > tool && chmod 4755 tool",
        'echo private > unreadable && chmod 000 unreadable',
        `mkdir -p volumes && ln -s /nowhere volumes/${volume}`,
        '',
      ].join('\n'),
    });
    await createUntilReady(compute, source, 60_000);
    expect(lstatSync(join(root, 'instances', source.id, 'home', 'tool')).mode & 0o4000).toBe(0o4000);
    const id = `snap-${randomUUID()}`;
    await compute.snapshot({ id, instanceId: source.id, projectId: randomUUID(), name: "it's 'quoted'; $(touch injected)" });
    const image = join(root, 'snapshots', id);
    const files = join(image, 'files');
    for (const dir of [join(root, 'snapshots'), image, files]) expect(lstatSync(dir)).toMatchObject({ uid: 0, mode: expect.any(Number) });
    for (const dir of [join(root, 'snapshots'), image, files]) expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    const paths = walk(files);
    expect(paths.sort()).toEqual(['kept.txt', 'link', 'shadow-link', 'sub', 'sub/deep.txt', 'tool', 'volumes'].sort());
    // Root's, no setuid, links as they were (never followed), nothing of user_data.
    for (const path of paths) expect(lstatSync(join(files, path)).uid).toBe(0);
    expect(lstatSync(join(files, 'tool')).mode & 0o7777).toBe(0o755);
    expect(readlinkSync(join(files, 'link'))).toBe('kept.txt');
    expect(readlinkSync(join(files, 'shadow-link'))).toBe('/etc/shadow');
    for (const path of paths.filter((p) => lstatSync(join(files, p)).isFile())) expect(readFileSync(join(files, path), 'utf8')).not.toContain(secret);
    expect(readFileSync(join(image, 'image.json'), 'utf8')).not.toContain(secret);

    // A member booted from it: the files are its own user's, and the link resolves in its own home.
    const copy = spec({ imageId: id });
    await createUntilReady(compute, copy, 60_000);
    const user = accounts.instanceUser(copy.id)!;
    const home = join(root, 'instances', copy.id, 'home');
    for (const path of paths) expect(lstatSync(join(home, path)).uid).toBe(user.uid);
    expect(lstatSync(join(home, 'tool')).mode & 0o7777).toBe(0o755);
    expect(await readAsInstance(copy.id, 'link')).toBe('kept\n');
    expect(await readAsInstance(copy.id, 'sub/deep.txt')).toBe('deep\n');
    expect(await readAsInstance(copy.id, 'shadow-link')).toBeNull();
    expect(existsSync(join(home, '.stratus', 'user-data'))).toBe(false);
    // Its name went into the boot script as words, not as commands.
    expect(existsSync(join(home, 'injected'))).toBe(false);
    await compute.deleteSnapshot(id);
    expect(existsSync(image)).toBe(false);
    await Promise.all([compute.delete(source.id), compute.delete(copy.id)]);
  });

  driverContract('local', () => ({
    compute,
    volumes,
    instanceSpec: () => spec(),
    failingBootSpec: () => spec({ imageId: 'plain', userData: 'echo about to fail\nexit 7\n' }),
    runningCopies: async (id) => leaders(id).length,
    // A worker killed while copying the image: the control folder and the user made, a home half-copied, no marker.
    createHalfway: async (s) => {
      const control = join(root, 'instances', s.id);
      mkdirSync(join(control, 'home'), { recursive: true, mode: 0o711 });
      chmodSync(control, 0o711);
      writeFileSync(join(control, 'home', 'half-copied'), '');
      await accounts.ensureInstanceUser(s.id);
    },
    // A delete killed after its signals: the processes gone, folder and user still there.
    deleteHalfway: async (id) => {
      const pids = leaders(id).map((l) => l.pid);
      for (const pid of pids) process.kill(-pid, 'SIGKILL');
      await waitFor('the instance processes gone', () => pids.every((pid) => !isAlive(readStat(pid))), { timeoutMs: 10_000, intervalMs: 20 });
    },
    // A create killed before its filesystem was made: the image file, no `ready`.
    volumeCreateHalfway: async (id, sizeGb) => {
      const dir = join(root, 'volumes', id);
      mkdirSync(dir, { recursive: true, mode: 0o711 });
      const fd = openSync(join(dir, 'disk.img'), 'w', 0o600);
      ftruncateSync(fd, sizeGb * 1024 ** 3);
      closeSync(fd);
    },
    bootWaitMs: 60_000,
    // The demo app's own load generator, over its port.
    loadCpu: async (s, percent, seconds) => {
      const res = await fetch(`http://${s.address}:${s.port}/load?percent=${percent}&seconds=${seconds}`, { method: 'POST' });
      expect(res.status).toBe(200);
    },
    cpuSecondsSeenInside: async (s) => {
      const res = await fetch(`http://${s.address}:${s.port}/cpu`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { cpu_seconds: number }).cpu_seconds;
    },
    snapshots: {
      writerSpec: (path, content) => spec({ imageId: 'plain', userData: `printf '%s' '${content}' >> '${path}'\n` }),
      // As the instance's own user: the file must be there for it, not merely on disk.
      readHome: (id, path) => readAsInstance(id, path),
      // Once the boot script has exec'd the image's start command.
      startCommand: async (id) =>
        waitFor(
          `instance ${id} to run its start command`,
          () => {
            const leader = leaders(id)[0];
            const cmdline = leader ? readFileSync(`/proc/${leader.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') : '';
            return cmdline !== '' && !cmdline.includes('boot.sh') && cmdline;
          },
          { timeoutMs: 10_000, intervalMs: 20 },
        ),
    },
    databases: {
      driver: databases,
      spec: () => databaseSpec(),
      runningCopies: async (key) => scanMarkedLeaders(DATABASE_MARKER, accounts.installation).get(key)?.length ?? 0,
      // A worker killed while laying the server out: its folder half-made, no marker.
      ensureHalfway: async (spec) => {
        mkdirSync(join(root, 'databases', spec.key, 'data'), { recursive: true });
        writeFileSync(join(root, 'databases', spec.key, 'data', 'half-made'), '');
      },
      // Its address and port already held: the server cannot bind them and exits.
      failingStartSpec: async () => {
        const spec = databaseSpec();
        const squatter = createServer().listen(spec.port, spec.address);
        await once(squatter, 'listening');
        squatters.push(squatter);
        return spec;
      },
    },
    network: {
      driver: network,
      // A range of its own per call, inside this slot's block.
      network: (prefixLength) => ({ networkId: `net-${++networks}`, cidr: `127.124.${Number(process.env.STRATUS_TEST_SLOT ?? 0)}.${8 * networks}/${prefixLength}` }),
    },
  }));
});
