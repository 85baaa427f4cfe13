import { driverContract, killInstancesUnder, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstanceSpec } from '../compute.driver';
import { CgroupLimiter } from './cgroups';
import { HostAccounts } from './host-accounts';
import { installationId } from './installation';
import { LocalComputeDriver } from './local-compute.driver';
import { LocalImages } from './local-images';
import { LocalVolumeDriver } from './local-volume.driver';
import { isAlive, readStat, scanInstanceLeaders } from './process-table';

/** Addresses of this test slot's own, out of every pool: suites of two slots may run this spec at once. */
const NET = `127.123.${Number(process.env.STRATUS_TEST_SLOT ?? 0)}`;

const asRoot = process.getuid?.() === 0;

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
  let n = 0;

  const spec = (overrides: Partial<InstanceSpec> = {}): InstanceSpec => ({
    id: randomUUID(),
    imageId: 'demo-web',
    address: `${NET}.${++n}`,
    port: 3000,
    userData: null,
    flavor: { vcpus: 1, ramMb: 512 },
    ...overrides,
  });

  const leaders = (id: string) => scanInstanceLeaders(accounts.installation).get(id) ?? [];

  beforeAll(() => {
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
      images: new LocalImages(),
      bootTimeoutMs: 60_000,
    });
    volumes = new LocalVolumeDriver({ volumesDir: join(root, 'volumes'), instancesDir, accounts });
  });

  afterAll(async () => {
    await killInstancesUnder(join(root, 'instances'));
    await accounts.removeAll();
    rmSync(root, { recursive: true, force: true });
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
  }));
});
