import {
  ANY_HOST,
  BackendSpec,
  ComputeDriver,
  DatabaseDriver,
  DatabaseServerSpec,
  DriverError,
  InstanceSpec,
  ListenerSpec,
  LoadBalancerDriver,
  NetworkDriver,
  ObservedDatabaseServer,
  ObservedInstance,
  VolumeDriver,
} from '@stratus/providers';
import { cpuFraction } from '@stratus/core';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from './wait';

/** What the contract suite needs of one provider. */
export interface DriverContractSubject {
  compute: ComputeDriver;
  volumes: VolumeDriver;
  /** A spec the provider can boot (a new id each call), with an address of its own. */
  instanceSpec(): InstanceSpec;
  /** A spec whose boot fails (its process exits before it is ready). */
  failingBootSpec(): InstanceSpec;
  /** How many of the instance the provider runs (process groups, VMs); 0 when none. */
  runningCopies(id: string): Promise<number>;
  /**
   * Leaves what an instance create cut short halfway leaves (the fake: an
   * injected failure mid-create; local: what a worker killed mid-layout
   * leaves). A create may have thrown on the way; the state is what counts.
   */
  createHalfway(spec: InstanceSpec): Promise<void>;
  /** Leaves what a delete cut short halfway leaves of a running instance (its processes stopped, the rest still there). */
  deleteHalfway(id: string): Promise<void>;
  /** Leaves what a volume create cut short halfway leaves. */
  volumeCreateHalfway(id: string, sizeGb: number): Promise<void>;
  /** How long a boot may take here, as a bound on waiting for one. */
  bootWaitMs: number;
  /** Has the booted `demo-web` instance keep `percent` of one core busy for `seconds` (its `POST /load`). */
  loadCpu(spec: InstanceSpec, percent: number, seconds: number): Promise<void>;
  /** The CPU seconds the booted `demo-web` instance's application says it has used (its `GET /cpu`). */
  cpuSecondsSeenInside(spec: InstanceSpec): Promise<number>;
  snapshots: {
    /** A spec of a `plain` instance (a new id each call) whose user_data, at its first boot, appends `content` to the file `path` of its home. */
    writerSpec(path: string, content: string): InstanceSpec;
    /** The file `path` of the instance's home as the instance's own user reads it; null when it has none or may not read it. */
    readHome(id: string, path: string): Promise<string | null>;
    /** What the instance's main process runs (its command line). */
    startCommand(id: string): Promise<string | null>;
  };
  databases: {
    driver: DatabaseDriver;
    /** A spec the provider can run (a new key each call), with an address of its own. */
    spec(): DatabaseServerSpec;
    /** How many servers of the key the provider runs; 0 when none. */
    runningCopies(key: string): Promise<number>;
    /** Leaves what an ensureRunning cut short halfway leaves. */
    ensureHalfway(spec: DatabaseServerSpec): Promise<void>;
    /** A spec whose server exits while it starts. */
    failingStartSpec(): Promise<DatabaseServerSpec>;
  };
  network: {
    driver: NetworkDriver;
    /** A network nothing else uses (a new id and range each call) with this prefix length: 30 holds two addresses. */
    network(prefixLength: number): { networkId: string; cidr: string };
  };
}

/** Repeats `create` (the worker's way: each call a new job run) until the instance is ready. */
export async function createUntilReady(compute: ComputeDriver, spec: InstanceSpec, timeoutMs: number): Promise<ObservedInstance> {
  return waitFor(
    `instance ${spec.id} to boot`,
    async () => {
      const observed = await compute.create(spec);
      return observed.ready && observed;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/**
 * Repeats `ensureRunning`, as the databases processor's job does, until the
 * server is ready; an error (a failed start) ends it at once.
 */
export async function ensureUntilReady<O extends ObservedDatabaseServer>(
  driver: { ensureRunning(spec: DatabaseServerSpec): Promise<O> },
  spec: DatabaseServerSpec,
  { timeoutMs = 60_000, intervalMs = 20 } = {},
): Promise<O> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const observed = await driver.ensureRunning(spec);
    if (observed.ready) return observed;
    if (Date.now() > deadline) throw new Error(`database server ${spec.key} not ready within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * Parts of the contract a provider may not have yet (or cannot show on
 * its test target: a cloud without telemetry measures no CPU time).
 */
export type ContractPart = 'usage' | 'snapshots' | 'databases' | 'network' | 'volumes' | 'volume-create-halfway';

/** How long the usage case measures a busy instance. */
const USAGE_INTERVAL_MS = 3_000;

/** The error a promise rejects with (fails the test when it resolves): a driver's DriverError, for its code and message. */
export async function rejection<E extends Error = DriverError>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected a rejection, got a result');
}

/**
 * The one driver contract every provider passes: what each operation does
 * when it is repeated, when its resource is gone, and when it was cut short
 * halfway. Cases say what the worker relies on; how the provider gets there
 * is its own.
 */
export function driverContract(name: string, subject: () => DriverContractSubject, options: { skip?: ContractPart[] } = {}): void {
  /** A case of a part the provider does not have runs as skipped, so the report still lists it. */
  const part = (p: ContractPart) => (options.skip?.includes(p) ? it.skip : it);
  describe(`driver contract: ${name}`, () => {
    describe('compute', () => {
      it('observes an unknown instance as null', async () => {
        const { compute } = subject();
        expect(await compute.observe(randomUUID())).toBeNull();
        expect((await compute.observeAll([randomUUID()])).size).toBe(0);
      });

      it('create returns before the boot is over, and repeating it gives one running instance', async () => {
        const s = subject();
        const spec = s.instanceSpec();
        const first = await s.compute.create(spec);
        // Non-blocking: the boot is under way, not over.
        expect(first).toMatchObject({ running: true, ready: false });
        const again = await s.compute.create(spec);
        expect(again.running).toBe(true);
        const ready = await createUntilReady(s.compute, spec, s.bootWaitMs);
        expect(ready).toMatchObject({ running: true, ready: true, limits: expect.any(String) });
        expect(await s.compute.observe(spec.id)).toMatchObject({ running: true, ready: true });
        expect((await s.compute.observeAll([spec.id])).get(spec.id)).toMatchObject({ running: true, ready: true });
        expect(await s.runningCopies(spec.id)).toBe(1);
        await s.compute.delete(spec.id);
      });

      it('delete removes it, repeated delete succeeds, and a gone one observes as null', async () => {
        const s = subject();
        const spec = s.instanceSpec();
        await createUntilReady(s.compute, spec, s.bootWaitMs);
        await s.compute.delete(spec.id);
        await s.compute.delete(spec.id);
        expect(await s.compute.observe(spec.id)).toBeNull();
        expect(await s.runningCopies(spec.id)).toBe(0);
      });

      it('delete of an instance that never existed succeeds', async () => {
        await expect(subject().compute.delete(randomUUID())).resolves.toBeUndefined();
      });

      it('a boot that fails is a terminal error, and stays one when create is repeated', async () => {
        const s = subject();
        const spec = s.failingBootSpec();
        const err = await waitFor(
          'the failed boot to be reported',
          async () => {
            try {
              await s.compute.create(spec);
              return false;
            } catch (e) {
              return e as Error;
            }
          },
          { timeoutMs: s.bootWaitMs, intervalMs: 50 },
        );
        expect(err).toBeInstanceOf(DriverError);
        expect((err as DriverError).terminal).toBe(true);
        expect(err.message).toMatch(/^boot failed/);
        const again = await rejection(s.compute.create(spec));
        expect(again.terminal).toBe(true);
        await s.compute.delete(spec.id);
        expect(await s.compute.observe(spec.id)).toBeNull();
      });

      it('a create cut short halfway is finished by a repeat', async () => {
        const s = subject();
        const spec = s.instanceSpec();
        await s.createHalfway(spec);
        await createUntilReady(s.compute, spec, s.bootWaitMs);
        expect(await s.runningCopies(spec.id)).toBe(1);
        await s.compute.delete(spec.id);
        expect(await s.compute.observe(spec.id)).toBeNull();
      });

      it('a delete cut short halfway is finished by a repeat', async () => {
        const s = subject();
        const spec = s.instanceSpec();
        await createUntilReady(s.compute, spec, s.bootWaitMs);
        await s.deleteHalfway(spec.id);
        expect(await s.runningCopies(spec.id)).toBe(0);
        await s.compute.delete(spec.id);
        expect(await s.compute.observe(spec.id)).toBeNull();
      });

      part('usage')('usage: CPU time as the instance itself counts it; a busy one shows its load, an idle one next to none, one that does not run nothing', async () => {
        const s = subject();
        const [busy, idle] = [s.instanceSpec(), s.instanceSpec()];
        await Promise.all([createUntilReady(s.compute, busy, s.bootWaitMs), createUntilReady(s.compute, idle, s.bootWaitMs)]);
        await s.loadCpu(busy, 80, 6);
        const inside = [await s.cpuSecondsSeenInside(busy)];
        const first = await s.compute.usage([busy.id, idle.id, randomUUID()]);
        expect([...first.keys()].sort()).toEqual([busy.id, idle.id].sort());
        // The measurement's own interval (inside the load's 6 s), not a wait for something to happen.
        await sleep(USAGE_INTERVAL_MS);
        inside.push(await s.cpuSecondsSeenInside(busy));
        const second = await s.compute.usage([busy.id, idle.id]);
        const used = (spec: InstanceSpec) => cpuFraction(first.get(spec.id)!, second.get(spec.id)!, spec.flavor.vcpus)!;
        // What the provider measured is what the application used (the two readings of each are a request apart).
        const measured = second.get(busy.id)!.cpuSeconds - first.get(busy.id)!.cpuSeconds;
        expect(Math.abs(measured - (inside[1] - inside[0]))).toBeLessThan(0.1 + 0.1 * measured);
        // 0.8 of its vCPU on an idle host; a loaded host gives a busy loop less than it asks, never none of it.
        expect(used(busy)).toBeGreaterThan(0.15);
        expect(used(busy)).toBeLessThan(1.05);
        expect(used(idle)).toBeLessThan(0.1);
        expect(used(busy)).toBeGreaterThan(used(idle) + 0.1);
        await Promise.all([s.compute.delete(busy.id), s.compute.delete(idle.id)]);
        expect((await s.compute.usage([busy.id, idle.id])).size).toBe(0);
      });
    });

    describe('snapshots', () => {
      part('snapshots')('a snapshot boots instances with its files and its start command; repeated, one image; deleted, gone while its instances stay', async () => {
        const s = subject();
        const source = s.snapshots.writerSpec('note.txt', 'written by user_data\n');
        await createUntilReady(s.compute, source, s.bootWaitMs);
        expect(await s.snapshots.readHome(source.id, 'note.txt')).toBe('written by user_data\n');
        const spec = { id: `snap-${randomUUID()}`, instanceId: source.id, projectId: randomUUID(), name: 'web, as it was' };
        expect(await s.compute.observeSnapshot(spec.id)).toBeNull();
        const image = await s.compute.snapshot(spec);
        expect(image).toMatchObject({ id: spec.id, name: spec.name, projectId: spec.projectId, sourceInstanceId: source.id, description: expect.any(String) });
        expect(await s.compute.snapshot(spec)).toEqual(image);
        expect(await s.compute.observeSnapshot(spec.id)).toEqual(image);
        // The source is as it was.
        expect(await s.compute.observe(source.id)).toMatchObject({ running: true, ready: true });

        const copy = { ...s.instanceSpec(), imageId: image.id };
        await createUntilReady(s.compute, copy, s.bootWaitMs);
        // The file as the source left it: one line, so the source's user_data did not run again.
        expect(await s.snapshots.readHome(copy.id, 'note.txt')).toBe('written by user_data\n');
        const start = await s.snapshots.startCommand(source.id);
        expect(start).toBeTruthy();
        expect(await s.snapshots.startCommand(copy.id)).toBe(start);

        await s.compute.deleteSnapshot(spec.id);
        await s.compute.deleteSnapshot(spec.id);
        expect(await s.compute.observeSnapshot(spec.id)).toBeNull();
        expect(await s.snapshots.readHome(copy.id, 'note.txt')).toBe('written by user_data\n');
        const late = await rejection(s.compute.create({ ...s.instanceSpec(), imageId: spec.id }));
        expect(late.code).toBe('invalid');
        // A member booted from a snapshot that is gone can still be snapshotted, with the same start command.
        const again = { id: `snap-${randomUUID()}`, instanceId: copy.id, projectId: spec.projectId, name: 'second generation' };
        await s.compute.snapshot(again);
        const third = { ...s.instanceSpec(), imageId: again.id };
        await createUntilReady(s.compute, third, s.bootWaitMs);
        expect(await s.snapshots.startCommand(third.id)).toBe(start);
        expect(await s.snapshots.readHome(third.id, 'note.txt')).toBe('written by user_data\n');
        await s.compute.deleteSnapshot(again.id);
        await Promise.all([s.compute.delete(source.id), s.compute.delete(copy.id), s.compute.delete(third.id)]);
      });

      part('snapshots')('refuses a snapshot of an instance that does not exist, a malformed id, and an id another image has', async () => {
        const s = subject();
        const missing = await rejection(s.compute.snapshot({ id: `snap-${randomUUID()}`, instanceId: randomUUID(), projectId: randomUUID(), name: 'x' }));
        expect(missing.code).toBe('not_found');
        const source = s.snapshots.writerSpec('a.txt', 'a');
        await createUntilReady(s.compute, source, s.bootWaitMs);
        for (const id of ['../etc', 'Snap', 'plain', 'a', 'snap.1', `snap-${'x'.repeat(64)}`]) {
          const bad = await rejection(s.compute.snapshot({ id, instanceId: source.id, projectId: randomUUID(), name: 'x' }));
          expect(bad.code).toBe('invalid');
        }
        const taken = { id: `snap-${randomUUID()}`, instanceId: source.id, projectId: randomUUID(), name: 'x' };
        await s.compute.snapshot(taken);
        const other = await rejection(s.compute.snapshot({ ...taken, projectId: randomUUID() }));
        expect(other.code).toBe('invalid');
        await s.compute.deleteSnapshot(taken.id);
        await s.compute.delete(source.id);
      });
    });

    describe('databases', () => {
      part('databases')('observes an unknown server as null; delete of one that never existed succeeds', async () => {
        const { databases } = subject();
        const spec = databases.spec();
        expect(await databases.driver.observe(spec.key)).toBeNull();
        await expect(databases.driver.delete(spec.key)).resolves.toBeUndefined();
      });

      part('databases')('ensureRunning returns while the server starts, and repeated gives one ready server; delete repeated succeeds', async () => {
        const { databases } = subject();
        const spec = databases.spec();
        expect(await databases.driver.ensureRunning(spec)).toMatchObject({ running: true });
        expect(await ensureUntilReady(databases.driver, spec)).toMatchObject({ running: true, ready: true });
        expect(await databases.driver.ensureRunning(spec)).toMatchObject({ running: true, ready: true });
        expect(await databases.driver.observe(spec.key)).toMatchObject({ running: true, ready: true });
        expect(await databases.runningCopies(spec.key)).toBe(1);
        await databases.driver.delete(spec.key);
        await databases.driver.delete(spec.key);
        expect(await databases.driver.observe(spec.key)).toBeNull();
        expect(await databases.runningCopies(spec.key)).toBe(0);
      });

      part('databases')('an ensureRunning cut short halfway is finished by a repeat', async () => {
        const { databases } = subject();
        const spec = databases.spec();
        await databases.ensureHalfway(spec);
        expect(await ensureUntilReady(databases.driver, spec)).toMatchObject({ running: true, ready: true });
        expect(await databases.runningCopies(spec.key)).toBe(1);
        await databases.driver.delete(spec.key);
        expect(await databases.driver.observe(spec.key)).toBeNull();
      });

      part('databases')('a server that exits while starting is a terminal error from a later look, and leaves nothing behind', async () => {
        const { databases } = subject();
        const spec = await databases.failingStartSpec();
        const err = await rejection(ensureUntilReady(databases.driver, spec));
        expect(err).toBeInstanceOf(DriverError);
        expect(err.terminal).toBe(true);
        expect(err.message).toMatch(/exited while starting/);
        expect(await databases.driver.observe(spec.key)).toBeNull();
        expect(await databases.runningCopies(spec.key)).toBe(0);
      });

      part('databases')('what the provider cannot run (ha without its three member addresses) is a terminal error that leaves nothing behind', async () => {
        const { databases } = subject();
        const spec = { ...databases.spec(), ha: true, memberAddresses: [] };
        const err = await rejection(databases.driver.ensureRunning(spec));
        expect(err).toBeInstanceOf(DriverError);
        expect(err.terminal).toBe(true);
        expect(await databases.driver.observe(spec.key)).toBeNull();
      });
    });

    describe('network', () => {
      const request = (net: { networkId: string; cidr: string }) => ({ id: randomUUID(), ...net, kind: 'instance' });
      /** Whether `address` is a host address of `cidr` (IPv4). */
      const inside = (address: string, cidr: string) => {
        const number = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
        const [base, bits] = cidr.split('/');
        const size = 2 ** (32 - Number(bits));
        const offset = number(address) - number(base);
        return offset > 0 && offset < size - 1;
      };

      part('network')('ensureAddress repeated gives the same address of the network, and observe sees it', async () => {
        const { network } = subject();
        const net = network.network(29);
        const req = request(net);
        const address = await network.driver.ensureAddress(req);
        expect(inside(address, net.cidr)).toBe(true);
        expect(await network.driver.ensureAddress(req)).toBe(address);
        expect(await network.driver.observe(req.id)).toBe(address);
        await network.driver.releaseAddress(req.id);
        expect(await network.driver.observe(req.id)).toBeNull();
      });

      part('network')('two resources never share an address, even when they ask at once', async () => {
        const { network } = subject();
        const net = network.network(29);
        const reqs = Array.from({ length: 6 }, () => request(net));
        const got = await Promise.all(reqs.map((r) => network.driver.ensureAddress(r)));
        expect(new Set(got).size).toBe(6);
        expect(got.every((a) => inside(a, net.cidr))).toBe(true);
        for (const r of reqs) await network.driver.releaseAddress(r.id);
      });

      part('network')('release of an address that is gone, or never was, succeeds', async () => {
        const { network } = subject();
        const req = request(network.network(29));
        await expect(network.driver.releaseAddress(req.id)).resolves.toBeUndefined();
        await network.driver.ensureAddress(req);
        await network.driver.releaseAddress(req.id);
        await expect(network.driver.releaseAddress(req.id)).resolves.toBeUndefined();
        expect(await network.driver.observe(req.id)).toBeNull();
      });

      part('network')('a full network is a terminal error naming it; a release makes room again', async () => {
        const { network } = subject();
        const net = network.network(30);
        const [a, b, c] = [request(net), request(net), request(net)];
        const first = await network.driver.ensureAddress(a);
        await network.driver.ensureAddress(b);
        const err = await rejection(network.driver.ensureAddress(c));
        expect(err).toBeInstanceOf(DriverError);
        expect(err.terminal).toBe(true);
        expect(err.message).toContain(`network ${net.networkId} `);
        expect(await network.driver.observe(c.id)).toBeNull();
        await network.driver.releaseAddress(a.id);
        expect(await network.driver.ensureAddress(c)).toBe(first);
        await network.driver.releaseAddress(b.id);
        await network.driver.releaseAddress(c.id);
      });
    });

    describe('volumes', () => {
      part('volumes')('create repeated gives one volume; delete repeated succeeds', async () => {
        const { volumes } = subject();
        const id = randomUUID();
        expect(await volumes.exists(id)).toBe(false);
        await volumes.create(id, 1);
        await volumes.create(id, 1);
        expect(await volumes.exists(id)).toBe(true);
        await volumes.delete(id);
        await volumes.delete(id);
        expect(await volumes.exists(id)).toBe(false);
      });

      part('volumes')('a gone volume: delete and detach succeed, attach is not_found', async () => {
        const s = subject();
        const id = randomUUID();
        await expect(s.volumes.delete(id)).resolves.toBeUndefined();
        await expect(s.volumes.detach(id, null)).resolves.toBeUndefined();
        const err = await rejection(s.volumes.attach(id, randomUUID()));
        expect(err).toBeInstanceOf(DriverError);
        expect(err.code).toBe('not_found');
      });

      part('volumes')('attach to an instance that is not there yet is retryable; attach and detach repeated succeed', async () => {
        const s = subject();
        const id = randomUUID();
        await s.volumes.create(id, 1);
        const early = await rejection(s.volumes.attach(id, randomUUID()));
        expect(early).toBeInstanceOf(DriverError);
        expect(early.terminal).toBe(false);
        const spec = s.instanceSpec();
        await createUntilReady(s.compute, spec, s.bootWaitMs);
        const attached = await s.volumes.attach(id, spec.id);
        expect(await s.volumes.attach(id, spec.id)).toEqual(attached);
        await s.volumes.detach(id, spec.id);
        await s.volumes.detach(id, spec.id);
        await s.compute.delete(spec.id);
        await s.volumes.delete(id);
        expect(await s.volumes.exists(id)).toBe(false);
      });

      part('volume-create-halfway')('a volume create cut short halfway does not exist yet, and a repeat finishes it', async () => {
        const s = subject();
        const id = randomUUID();
        await s.volumeCreateHalfway(id, 1);
        expect(await s.volumes.exists(id)).toBe(false);
        await s.volumes.create(id, 1);
        expect(await s.volumes.exists(id)).toBe(true);
        await s.volumes.delete(id);
      });
    });
  });
}

/** Parts of the load-balancer contract a provider may not have (a cloud whose balancers take certificates from a store the provider does not write). */
export type LoadBalancerContractPart = 'tls';

/**
 * The load-balancer part of the contract, for any provider's driver: what
 * a cluster or an HA database relies on when its worker job repeats a step
 * or finds the listener gone. `id` gives a new listener id each call.
 */
export function loadBalancerContract(
  name: string,
  subject: () => {
    driver: LoadBalancerDriver;
    id: () => string;
    /** Where a TCP listener may terminate TLS, and a certificate it may use. */
    tls: { address: string; port: number; certificateId: number };
    /**
     * The address every listener of the run listens on, each on its own
     * port unless a case shares one (for a provider that can listen only on
     * its network's addresses): 127.0.0.1 unless given.
     */
    address?: string;
    /** The backends' address, likewise: 127.0.0.1 unless given. */
    backendAddress?: string;
  },
  options: { skip?: LoadBalancerContractPart[] } = {},
): void {
  const part = (p: LoadBalancerContractPart) => (options.skip?.includes(p) ? it.skip : it);
  describe(`load-balancer contract: ${name}`, () => {
    const ports = new Map<string, number>();
    const portOf = (id: string) => ports.get(id) ?? ports.set(id, 15432 + ports.size).get(id)!;
    const address = () => subject().address ?? '127.0.0.1';
    const listener = (id: string): ListenerSpec => ({ id, address: address(), port: portOf(id), protocol: 'tcp', check: { kind: 'connect' } });
    const backend = (port: number): BackendSpec => ({ address: subject().backendAddress ?? '127.0.0.1', port });
    const states = async (driver: LoadBalancerDriver, id: string) => (await driver.observe(id))!.backends.map((b) => `${b.port} ${b.state}`).sort();

    it('observes an unknown listener as null; deleting one that never existed succeeds', async () => {
      const { driver, id } = subject();
      const missing = id();
      expect(await driver.observe(missing)).toBeNull();
      await driver.deleteListener(missing);
      await expect(driver.addBackend(missing, backend(1))).rejects.toMatchObject({ code: 'not_found' });
    });

    it('ensureListener and addBackend repeated give one listener with one backend each', async () => {
      const { driver, id } = subject();
      const l = id();
      await driver.ensureListener(listener(l));
      await driver.ensureListener(listener(l));
      await driver.addBackend(l, backend(1));
      await driver.addBackend(l, backend(1));
      await driver.addBackend(l, backend(2));
      expect(await states(driver, l)).toEqual(['1 active', '2 active']);
      await driver.deleteListener(l);
    });

    it('drain keeps a backend, remove takes it out, add brings it back; removing a gone one succeeds', async () => {
      const { driver, id } = subject();
      const l = id();
      await driver.ensureListener(listener(l));
      await driver.addBackend(l, backend(1));
      await driver.addBackend(l, backend(2));
      await driver.drainBackend(l, backend(1));
      await driver.drainBackend(l, backend(1));
      await driver.removeBackend(l, backend(2));
      await driver.removeBackend(l, backend(2));
      await driver.removeBackend(l, backend(3));
      // A removed backend may linger as `removing` while its connections end; never as active.
      expect((await states(driver, l)).filter((s) => !s.endsWith('removing'))).toEqual(['1 draining']);
      await expect(driver.drainBackend(l, backend(9))).rejects.toMatchObject({ code: 'not_found' });
      await driver.addBackend(l, backend(1));
      expect((await states(driver, l)).filter((s) => !s.endsWith('removing'))).toEqual(['1 active']);
      await driver.deleteListener(l);
      await driver.deleteListener(l);
      expect(await driver.observe(l)).toBeNull();
    });

    part('tls')('a tcp listener terminates TLS with the certificate it names; observe says so; no other protocol may', async () => {
      const { driver, id, tls } = subject();
      const l = id();
      const spec: ListenerSpec = { ...listener(l), address: tls.address, port: tls.port, tls: { certificateId: tls.certificateId } };
      await driver.ensureListener(spec);
      await driver.ensureListener(spec);
      await driver.addBackend(l, backend(1));
      const seen = await driver.observe(l);
      expect(seen!.spec).toMatchObject({ id: l, address: tls.address, port: tls.port, protocol: 'tcp', tls: { certificateId: tls.certificateId } });
      // Taken off again: the listener forwards plain TCP.
      await driver.ensureListener({ ...spec, tls: undefined });
      expect((await driver.observe(l))!.spec?.tls).toBeUndefined();
      await expect(driver.ensureListener({ ...spec, protocol: 'http', hosts: ['a.example'] })).rejects.toMatchObject({ code: 'invalid' });
      await expect(driver.ensureListener({ ...spec, tls: { certificateId: 0 } })).rejects.toMatchObject({ code: 'invalid' });
      await driver.deleteListener(l);
    });

    it('lists the listeners that exist by id prefix, for a reconciler to compare', async () => {
      const { driver, id } = subject();
      const [a, b] = [id(), id()];
      await driver.ensureListener(listener(a));
      await driver.ensureListener(listener(b));
      expect(await driver.listenerIds('')).toEqual(expect.arrayContaining([a, b]));
      expect(await driver.listenerIds(a)).toContain(a);
      expect(await driver.listenerIds(a)).not.toContain(b);
      expect(await driver.listenerIds(`${a}-none`)).toEqual([]);
      await driver.deleteListener(a);
      expect(await driver.listenerIds('')).not.toContain(a);
      expect(await driver.listenerIds('')).toContain(b);
      await driver.deleteListener(b);
    });

    it('tcp listeners share an address on their own ports, each with its backends; deleting one leaves the other as it was', async () => {
      const { driver, id } = subject();
      const [a, b] = [id(), id()];
      await driver.ensureListener(listener(a));
      await driver.ensureListener(listener(b));
      await driver.addBackend(a, backend(1));
      await driver.addBackend(b, backend(2));
      await driver.addBackend(b, backend(3));
      expect(await states(driver, a)).toEqual(['1 active']);
      expect(await states(driver, b)).toEqual(['2 active', '3 active']);
      expect((await driver.observe(a))!.spec).toMatchObject({ address: address(), port: portOf(a), protocol: 'tcp' });
      expect((await driver.observe(b))!.spec).toMatchObject({ address: address(), port: portOf(b), protocol: 'tcp' });
      const before = await driver.observe(b);
      await driver.deleteListener(a);
      expect(await driver.observe(a)).toBeNull();
      const after = await driver.observe(b);
      expect({ status: after!.status, spec: after!.spec, states: await states(driver, b) }).toEqual({
        status: before!.status,
        spec: before!.spec,
        states: ['2 active', '3 active'],
      });
      await driver.deleteListener(b);
    });

    it('http listeners share an address and port by Host name, one of them taking every other name; deleting one leaves the others', async () => {
      const { driver, id } = subject();
      const [a, b, any] = [id(), id(), id()];
      const port = portOf(a);
      const http = (l: string, hosts: string[]): ListenerSpec => ({ ...listener(l), port, protocol: 'http', hosts });
      await driver.ensureListener(http(a, ['a.example']));
      await driver.ensureListener(http(b, ['b.example', 'c.example']));
      await driver.ensureListener(http(any, [ANY_HOST]));
      await driver.addBackend(a, backend(1));
      await driver.addBackend(b, backend(2));
      await driver.addBackend(any, backend(3));
      const hosts = async (l: string) => {
        const seen = await driver.observe(l);
        return { port: seen!.spec?.port, hosts: [...(seen!.spec?.hosts ?? [])].sort(), states: await states(driver, l) };
      };
      expect(await hosts(a)).toEqual({ port, hosts: ['a.example'], states: ['1 active'] });
      expect(await hosts(b)).toEqual({ port, hosts: ['b.example', 'c.example'], states: ['2 active'] });
      expect(await hosts(any)).toEqual({ port, hosts: [ANY_HOST], states: ['3 active'] });
      const before = { a: await driver.observe(a), any: await driver.observe(any) };
      await driver.deleteListener(b);
      expect(await driver.observe(b)).toBeNull();
      expect(await hosts(a)).toEqual({ port, hosts: ['a.example'], states: ['1 active'] });
      expect(await hosts(any)).toEqual({ port, hosts: [ANY_HOST], states: ['3 active'] });
      expect((await driver.observe(a))!.status).toBe(before.a!.status);
      expect((await driver.observe(any))!.status).toBe(before.any!.status);
      await driver.deleteListener(a);
      expect(await hosts(any)).toEqual({ port, hosts: [ANY_HOST], states: ['3 active'] });
      await driver.deleteListener(any);
    });

    it('refuses a listener on a port another holds (another protocol, a second taker of every name: invalid; a tcp port: retryable, until it is given back), naming it, and changes nothing', async () => {
      const { driver, id } = subject();
      const [tcp, web, other] = [id(), id(), id()];
      await driver.ensureListener(listener(tcp));
      await driver.addBackend(tcp, backend(1));
      await driver.ensureListener({ ...listener(web), protocol: 'http', hosts: [ANY_HOST] });
      const held = { tcp: await driver.observe(tcp), web: await driver.observe(web) };
      for (const refused of [
        { ...listener(other), port: portOf(tcp) },
        { ...listener(other), port: portOf(tcp), protocol: 'http' as const, hosts: ['a.example'] },
        { ...listener(other), port: portOf(web) },
        { ...listener(other), port: portOf(web), protocol: 'http' as const, hosts: ['a.example', ANY_HOST] },
      ]) {
        const holder = refused.port === portOf(tcp) ? tcp : web;
        const code = refused.protocol === 'tcp' && holder === tcp ? 'retryable' : 'invalid';
        await expect(driver.ensureListener(refused)).rejects.toMatchObject({ code, message: expect.stringContaining(`listener ${holder}'s`) });
      }
      expect(await driver.observe(other)).toBeNull();
      expect(await driver.listenerIds(other)).toEqual([]);
      expect((await driver.observe(tcp))!.spec).toEqual(held.tcp!.spec);
      expect(await states(driver, tcp)).toEqual(['1 active']);
      expect((await driver.observe(web))!.spec).toEqual(held.web!.spec);
      // A listener's own port is its to change: tcp to http and back.
      await driver.ensureListener({ ...listener(tcp), protocol: 'http', hosts: ['a.example'] });
      expect((await driver.observe(tcp))!.spec).toMatchObject({ port: portOf(tcp), protocol: 'http', hosts: ['a.example'] });
      expect(await states(driver, tcp)).toEqual(['1 active']);
      await driver.deleteListener(tcp);
      await driver.deleteListener(web);
      // Given back: the port may be another's.
      await driver.ensureListener({ ...listener(other), port: portOf(tcp) });
      expect((await driver.observe(other))!.spec).toMatchObject({ port: portOf(tcp), protocol: 'tcp' });
      await driver.deleteListener(other);
    });

    it('refuses what no balancer can be given as invalid, and keeps nothing of it', async () => {
      const { driver, id } = subject();
      const l = id();
      await expect(driver.ensureListener({ ...listener(l), protocol: 'http', hosts: ['Not_A_Host'] })).rejects.toMatchObject({ code: 'invalid' });
      expect(await driver.observe(l)).toBeNull();
      await driver.ensureListener(listener(l));
      await expect(driver.addBackend(l, { address: 'db.internal', port: 1 })).rejects.toMatchObject({ code: 'invalid' });
      expect(await states(driver, l)).toEqual([]);
      await driver.deleteListener(l);
    });
  });
}
