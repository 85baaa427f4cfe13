import { Instance, InstanceLifecycle, ProxyHost, ProxyHostLifecycle, reconcilerRepairs } from '@stratus/core';
import { LOAD_BALANCER_DRIVER, NETWORK_DRIVER, NetworkDriver } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { DEMO_INSTANCE, FakeLoadBalancerDriver, useWorkerOnFake, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { InstancesProcessor } from '../instances/instances.processor';
import { WorkerModule } from '../worker.module';
import { hostListenerId } from './host-listener';
import { HostsReconciler } from './hosts.reconciler';

/*
 * Proxy hosts as the worker makes them: each a listener with one backend on
 * the load-balancer driver (the fake's, in memory), written through the
 * same lifecycles the api uses, with the worker's BullMQ workers running the
 * jobs in this process.
 */
describe('proxy host listeners on the fake provider', () => {
  const w = useWorkerOnFake('hosts', (config) => WorkerModule.register(config), { control: { bootMs: 100 } });
  const driver = () => w.get<FakeLoadBalancerDriver>(LOAD_BALANCER_DRIVER);
  const hosts = () => w.get(ProxyHostLifecycle);
  const queues = [QUEUES.instances, QUEUES.routes];
  const drained = () => w.drained(queues);
  const http = () => ({ address: w.config.EDGE_HTTP_HOST, port: w.config.EDGE_HTTP_PORT });

  /** An instance created as POST /v1/instances does, ACTIVE with its address; and its own proxy host (its dname). */
  async function instance(dname: string): Promise<{ row: Instance; host: ProxyHost }> {
    const created = await w.get(InstanceLifecycle).create({ name: dname, dname, ...DEMO_INSTANCE }, w.principal);
    await drained();
    const row = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
    expect(row.status).toBe('ACTIVE');
    return { row, host: await w.db.getRepository(ProxyHost).findOneByOrFail({ instanceId: row.id }) };
  }

  /** The listener as the driver holds it, in a form that says everything an edge would serve. */
  async function held(proxyHostId: string) {
    const seen = await driver().observe(hostListenerId(proxyHostId));
    return seen && { spec: seen.spec, backends: seen.backends.map((b) => `${b.address}:${b.port} ${b.state}`) };
  }

  it("makes the instance's own proxy host a listener on the edge's HTTP listener, its address and port the one backend", async () => {
    const { row, host } = await instance('own-name');
    expect(await held(host.id)).toEqual({
      spec: { id: hostListenerId(host.id), ...http(), protocol: 'http', hosts: ['own-name.localhost'], check: { kind: 'connect' } },
      backends: [`${row.address}:3000 active`],
    });
  });

  it('a proxy host of an instance with no address yet waits for it, then is made', async () => {
    const instances = w.get(InstancesProcessor).worker;
    await instances.pause();
    let id: string;
    try {
      id = (await w.get(InstanceLifecycle).create({ name: 'later', dname: 'later', ...DEMO_INSTANCE }, w.principal)).id;
      const host = await w.db.getRepository(ProxyHost).findOneByOrFail({ instanceId: id });
      // Its job ran, found no address, and waits in the delayed set rather than fail or hold a slot.
      await waitFor('the host job to wait', async () => (await w.queue(QUEUES.routes).getJob(`host-apply-${host.id}-g1`))?.isDelayed(), { timeoutMs: 30_000, intervalMs: 20 });
      expect(await held(host.id)).toBeNull();
    } finally {
      instances.resume();
    }
    await drained();
    const row = await w.db.getRepository(Instance).findOneByOrFail({ id: id! });
    const host = await w.db.getRepository(ProxyHost).findOneByOrFail({ instanceId: id! });
    expect((await held(host.id))?.backends).toEqual([`${row.address}:3000 active`]);
  });

  it('create, update and delete of a proxy host make, move and delete its listener', async () => {
    const { row } = await instance('crud');
    const created = await hosts().create({ instanceId: row.id, forwardPort: 3000, domain: 'shop' }, w.principal);
    await drained();
    expect(await held(created.id)).toMatchObject({ spec: { hosts: ['shop.localhost'] }, backends: [`${row.address}:3000 active`] });

    await hosts().update(created.id, { forwardPort: 3001, domain: 'store' }, w.principal);
    await drained();
    expect(await held(created.id)).toMatchObject({ spec: { hosts: ['store.localhost'] }, backends: [`${row.address}:3001 active`] });

    await hosts().delete(created.id, w.principal);
    await drained();
    expect(await held(created.id)).toBeNull();
  });

  it("an instance's delete takes its proxy hosts' listeners down before its address goes back to the network", async () => {
    const { row, host } = await instance('going');
    const extra = await hosts().create({ instanceId: row.id, forwardPort: 3000 }, w.principal);
    await drained();
    const ids = [hostListenerId(host.id), hostListenerId(extra.id)];
    expect((await driver().listenerIds('host-')).filter((l) => ids.includes(l))).toEqual(ids.sort());
    // What the driver holds at the moment the address is released: the next project may be given it then.
    const network = w.get<NetworkDriver>(NETWORK_DRIVER);
    const atRelease: string[][] = [];
    const original = network.releaseAddress.bind(network);
    const release = jest.spyOn(network, 'releaseAddress').mockImplementation(async (resourceId: string) => {
      if (resourceId === row.id) atRelease.push((await driver().listenerIds('host-')).filter((l) => ids.includes(l)));
      return original(resourceId);
    });
    try {
      await w.get(InstanceLifecycle).delete(row.id, w.principal);
      await drained();
    } finally {
      release.mockRestore();
    }
    expect(atRelease).toEqual([[]]);
    expect(await w.db.getRepository(Instance).existsBy({ id: row.id })).toBe(false);
    // The proxy hosts went with the row; their delete jobs (the trigger's) find nothing left to do.
    await drained();
    for (const id of ids) expect(await driver().observe(id)).toBeNull();
  });

  describe('the reconciler', () => {
    const sweep = () => w.get(HostsReconciler).sweep();

    it('makes a missing listener again, and brings one whose name or backend differs back', async () => {
      const { row, host } = await instance('drift');
      const id = hostListenerId(host.id);
      const want = await held(host.id);
      await driver().deleteListener(id);
      await sweep();
      expect(await held(host.id)).toEqual(want);

      await driver().ensureListener({ ...want!.spec!, hosts: ['stolen.localhost'] });
      await driver().addBackend(id, { address: row.address!, port: 9999 });
      await sweep();
      expect(await held(host.id)).toEqual(want);
    });

    it('asks again, each sweep, for a listener the provider says it does not serve, and counts a repair only once it is served', async () => {
      const { host } = await instance('faulty');
      const id = hostListenerId(host.id);
      const repairs = async () => (await reconcilerRepairs.get()).values.find((v) => v.labels.reconciler === 'hosts' && v.labels.action === 'remade_listener')?.value ?? 0;
      const before = await repairs();
      // What the openstack provider says of a listener on a load balancer in ERROR, until an ensure replaces it.
      let fault: string | null = 'the Octavia load balancer 5c0e2a4e-9d1b-4f3e-8a61-0d2b7c9e4f10 is in ERROR';
      let ensureRepairs = false;
      const [realObserve, realEnsure] = [driver().observe.bind(driver()), driver().ensureListener.bind(driver())];
      const observe = jest.spyOn(driver(), 'observe').mockImplementation(async (l) => {
        const seen = await realObserve(l);
        return seen && l === id && fault ? { ...seen, status: fault } : seen;
      });
      const ensure = jest.spyOn(driver(), 'ensureListener').mockImplementation(async (spec) => {
        await realEnsure(spec);
        if (ensureRepairs && spec.id === id) fault = null;
      });
      try {
        // Not repaired: asked again every sweep, not counted.
        await sweep();
        await sweep();
        expect(ensure.mock.calls.filter(([spec]) => spec.id === id)).toHaveLength(2);
        expect(await repairs()).toBe(before);
        // Repaired by the next ensure (a load balancer replaced): counted once, and then held.
        ensureRepairs = true;
        await sweep();
        await sweep();
        expect(ensure.mock.calls.filter(([spec]) => spec.id === id)).toHaveLength(3);
        expect(await repairs()).toBe(before + 1);
      } finally {
        observe.mockRestore();
        ensure.mockRestore();
      }
    });

    it('deletes a host listener no proxy host asks for, and leaves other listeners alone', async () => {
      const orphan = hostListenerId(randomUUID());
      const spec = { ...http(), protocol: 'http' as const, hosts: ['orphan.localhost'], check: { kind: 'connect' as const } };
      await driver().ensureListener({ id: orphan, ...spec });
      await driver().ensureListener({ id: 'cluster-7', ...spec, hosts: ['cluster.localhost'] });
      await sweep();
      expect(await driver().observe(orphan)).toBeNull();
      expect(await driver().observe('cluster-7')).not.toBeNull();
      await driver().deleteListener('cluster-7');
    });

    it('deletes the listener of a proxy host whose instance holds no address', async () => {
      const { row, host } = await instance('no-address');
      await w.db.query(`UPDATE instances SET address = NULL WHERE id = $1`, [row.id]);
      await sweep();
      expect(await held(host.id)).toBeNull();
    });
  });
});
