import { DatabaseServerSpec, DriverError, InstanceSpec } from '@stratus/providers';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driverContract, loadBalancerContract } from '../driver-contract';
import { FakeComputeDriver } from './fake-compute.driver';
import { FakeControl } from './fake-control';
import { FakeDatabaseDriver } from './fake-database.driver';
import { FakeLoadBalancerDriver } from './fake-load-balancer.driver';
import { FakeNetworkDriver } from './fake-network.driver';
import { FakeVolumeDriver } from './fake-volume.driver';

const spec = (): InstanceSpec => ({
  id: randomUUID(),
  imageId: 'plain',
  address: '127.0.0.1',
  port: 3000,
  userData: null,
  flavor: { vcpus: 1, ramMb: 512 },
});

/** Expects `promise` to reject: an injected failure is part of the state the case sets up. */
async function failed(promise: Promise<unknown>): Promise<void> {
  await expect(promise).rejects.toBeInstanceOf(DriverError);
}

describe('the fake provider', () => {
  // A boot long enough that create visibly returns before it is over.
  const control = new FakeControl({ bootMs: 200 });
  const compute = new FakeComputeDriver(control);
  const volumes = new FakeVolumeDriver(control, compute);
  const databases = new FakeDatabaseDriver(control);
  const balancers = new FakeLoadBalancerDriver(control);
  const network = new FakeNetworkDriver(control);
  let n = 0;
  let networks = 0;

  const databaseSpec = (): DatabaseServerSpec => ({
    key: `redis-${++n}`,
    engine: 'redis',
    version: '7',
    address: '127.0.0.1',
    port: 6379,
    dbName: null,
    dbUser: null,
    passwordVerifier: 'not a secret: the fake runs nothing',
    superuser: false,
    extensions: [],
    ha: false,
    memberAddresses: [],
  });

  loadBalancerContract('fake', () => ({ driver: balancers, id: () => `lb-${++n}`, tls: { address: '127.0.0.1', port: 20001, certificateId: 1 } }));

  driverContract('fake', () => ({
    compute,
    volumes,
    instanceSpec: spec,
    failingBootSpec: () => {
      control.failNextBoot('injected boot failure');
      return spec();
    },
    runningCopies: async (id) => ((await compute.observe(id))?.running ? 1 : 0),
    createHalfway: async (s) => {
      control.failNext('compute.create', 'halfway');
      await failed(compute.create(s));
    },
    deleteHalfway: async (id) => {
      control.failNext('compute.delete', 'halfway');
      await failed(compute.delete(id));
    },
    volumeCreateHalfway: async (id, sizeGb) => {
      control.failNext('volume.create', 'halfway');
      await failed(volumes.create(id, sizeGb));
    },
    bootWaitMs: 10_000,
    loadCpu: async (s, percent, seconds) => control.setCpuLoad(s.id, percent / 100, seconds),
    // Nothing runs inside a fake instance: the load set on it is all it uses.
    cpuSecondsSeenInside: async (s) => control.cpuSeconds(s.id, Date.now()),
    snapshots: {
      writerSpec: (path, content) => {
        const s = spec();
        control.writeAtFirstBoot(s.id, path, content);
        return s;
      },
      readHome: async (id, path) => compute.readFile(id, path),
      startCommand: async (id) => compute.startCommand(id),
    },
    databases: {
      driver: databases,
      spec: () => databaseSpec(),
      runningCopies: async (key) => ((await databases.observe(key))?.running ? 1 : 0),
      ensureHalfway: async (spec) => {
        control.failNext('database.ensureRunning', 'halfway');
        await failed(databases.ensureRunning(spec));
      },
      failingStartSpec: async () => {
        control.failNextDatabaseStart('injected start failure');
        return databaseSpec();
      },
    },
    network: {
      driver: network,
      // A range of its own per call.
      network: (prefixLength) => ({ networkId: `net-${++networks}`, cidr: `10.9.${networks}.0/${prefixLength}` }),
    },
  }));

  it('a boot past the boot timeout is removed and reported as a terminal error', async () => {
    const slow = new FakeControl({ bootMs: 60_000, bootTimeoutMs: 50 });
    const driver = new FakeComputeDriver(slow);
    const s = spec();
    expect((await driver.create(s)).ready).toBe(false);
    const err = await (async () => {
      for (;;) {
        try {
          await driver.create(s);
        } catch (e) {
          return e as DriverError;
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    expect(err.terminal).toBe(true);
    expect(err.message).toMatch(/not ready within 50 ms/);
    expect(await driver.observe(s.id)).toBeNull();
  });

  it('an address assigned by an ensure cut short is the one a repeat returns, also for the next worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-network-'));
    try {
      const stateFile = join(dir, 'state.json');
      const first = new FakeControl({ stateFile });
      const req = { id: randomUUID(), networkId: 'private', cidr: '10.8.0.0/29', kind: 'instance' };
      first.failNext('network.ensureAddress', 'halfway');
      await failed(new FakeNetworkDriver(first).ensureAddress(req));
      // A worker started again on the same installation.
      const next = new FakeNetworkDriver(new FakeControl({ stateFile }));
      expect(await next.observe(req.id)).toBe('10.8.0.1');
      expect(await next.ensureAddress(req)).toBe('10.8.0.1');
      expect(await next.ensureAddress({ ...req, id: randomUUID() })).toBe('10.8.0.2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records how many boots overlapped', () => {
    const c = new FakeControl();
    c.bootReady(c.bootStarted('a', 0), 10);
    c.bootReady(c.bootStarted('b', 5), 15);
    c.bootReady(c.bootStarted('c', 15), 20);
    expect(c.maxConcurrentBoots()).toBe(2);
  });
});
