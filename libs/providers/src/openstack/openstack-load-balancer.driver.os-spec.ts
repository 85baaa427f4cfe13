import { DriverError, ListenerSpec, MARK, OpenStackClient } from '@stratus/providers';
import { failTestbedLoadBalancer, failTestbedOctaviaObject, FaultInjectingProxy, loadBalancerContract, rejection, testbedClient, testbedCloud, waitFor } from '@stratus/testing';
import { randomBytes } from 'node:crypto';
import { OpenStackLoadBalancerDriver } from './openstack-load-balancer.driver';
import { PostgresTurns } from '../shared-turns';

/**
 * The Octavia driver against the testbed's Octavia (no-op amphora, compute
 * and network drivers: every object goes ACTIVE, no traffic flows). Its
 * no-op network driver reads no Neutron port, so the listeners here listen
 * on an address of a subnet made for the run (the VIP on the subnet, not
 * on a port). The contract's listeners share one address, so one load
 * balancer; each case below has an address of its own, to count what
 * Octavia holds for it. The TLS case of the contract is skipped: the
 * testbed has no Barbican, and the driver refuses TLS (checked below).
 */
const client = testbedClient();
/** Where the shared turns' advisory locks are taken (no table: any database does). */
const TURNS_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const driver = new OpenStackLoadBalancerDriver(client);
/** Every listener of this run starts with it, so the cleanup touches nothing else. */
const run = `oslb-${randomBytes(4).toString('hex')}`;
let n = 0;
const nextId = () => `${run}-${++n}`;
let networkId = '';
/** The run's subnet: 10.241.<octet>.0/24: the contract's listeners on .10, each case's on its own (.20 to .239), the backends on .5. */
let octet = 0;
const sharedAddress = () => `10.241.${octet}.10`;
let addresses = 0;
const nextAddress = () => `10.241.${octet}.${20 + (++addresses % 220)}`;
let backendAddress = '';
/** The load balancers this run made: those of its subnet. */
const ofRun = (address: string) => address.startsWith(`10.241.${octet}.`);

interface Lb {
  id: string;
  name: string;
  vip_address: string;
  provisioning_status: string;
}

interface Pool {
  id: string;
  protocol: string;
  provisioning_status: string;
  healthmonitor_id: string;
  lb_algorithm: string;
  loadbalancers: Array<{ id: string }>;
}

interface Listener {
  id: string;
  protocol: string;
  protocol_port: number;
  default_pool_id: string | null;
}

/** The load balancers Octavia itself lists for an address, those being deleted aside unless `dying`. */
async function octaviaLbs(c: OpenStackClient, address: string, dying = false): Promise<Lb[]> {
  const { loadbalancers } = await c.get<{ loadbalancers: Lb[] }>('load-balancer', '/lbaas/loadbalancers', { query: { name: MARK.addressName(address) } });
  return loadbalancers.filter((lb) => lb.provisioning_status !== 'DELETED' && (dying || lb.provisioning_status !== 'PENDING_DELETE'));
}

/** The pools Octavia itself lists for a listener id, those being deleted aside. */
async function octaviaPools(c: OpenStackClient, id: string): Promise<Pool[]> {
  const { pools } = await c.get<{ pools: Pool[] }>('load-balancer', '/lbaas/pools', { query: { name: MARK.name(id) } });
  return pools.filter((p) => p.provisioning_status !== 'DELETED' && p.provisioning_status !== 'PENDING_DELETE');
}

async function octaviaListeners(c: OpenStackClient, lbId: string): Promise<Listener[]> {
  const { listeners } = await c.get<{ listeners: Listener[] }>('load-balancer', '/lbaas/listeners', { query: { loadbalancer_id: lbId } });
  return listeners.sort((a, b) => a.protocol_port - b.protocol_port);
}

beforeAll(async () => {
  octet = 1 + Math.floor(Math.random() * 250);
  const { network } = await client.post<{ network: { id: string } }>('network', '/networks', { network: { name: `${run}-net` } });
  networkId = network.id;
  await client.post('network', '/subnets', { subnet: { network_id: networkId, cidr: `10.241.${octet}.0/24`, ip_version: 4, gateway_ip: null, enable_dhcp: false } });
  backendAddress = `10.241.${octet}.5`;
});

afterAll(async () => {
  // What a failed case left: this run's load balancers, then its network.
  const { loadbalancers } = await client.get<{ loadbalancers: Lb[] }>('load-balancer', '/lbaas/loadbalancers', { query: { tags: MARK.managedTag } });
  const mine = loadbalancers.filter((lb) => ofRun(lb.vip_address));
  for (const lb of mine) {
    await waitFor(
      `load balancer ${lb.id} to settle`,
      async () => {
        const { loadbalancer } = await client.get<{ loadbalancer: Lb }>('load-balancer', `/lbaas/loadbalancers/${lb.id}`);
        return !loadbalancer.provisioning_status.startsWith('PENDING_') || loadbalancer.provisioning_status === 'PENDING_DELETE';
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    ).catch(() => undefined);
    await client.delete('load-balancer', `/lbaas/loadbalancers/${lb.id}`, { query: { cascade: true } }).catch(() => undefined);
  }
  if (networkId) await client.delete('network', `/networks/${networkId}`);
});

loadBalancerContract(
  'openstack (Octavia)',
  () => ({ driver, id: nextId, tls: { address: `10.241.${octet}.9`, port: 443, certificateId: 1 }, address: sharedAddress(), backendAddress }),
  // No Barbican on the testbed, and the driver keeps no certificate there: TLS is refused (below).
  { skip: ['tls'] },
);

describe('openstack load balancers: the Octavia mapping', () => {
  const octavia = <T>(path: string, query?: Record<string, string>) => client.get<T>('load-balancer', path, { query });

  it('an HTTP listener by Host: listener, ROUND_ROBIN pool, HTTP monitor from the check, one Host rule; ANY_HOST makes the pool the default', async () => {
    const id = nextId();
    const spec: ListenerSpec = {
      id,
      address: nextAddress(),
      port: 8080,
      protocol: 'http',
      hosts: ['b.example', 'a.example'],
      check: { kind: 'http', path: '/health', port: 8008, intervalMs: 250, fall: 3, rise: 2 },
    };
    await driver.ensureListener(spec);
    await driver.addBackend(id, { address: backendAddress, port: 8080 });
    const [lb] = await octaviaLbs(client, spec.address);
    const listeners = await octaviaListeners(client, lb.id);
    expect(listeners).toEqual([expect.objectContaining({ protocol: 'HTTP', protocol_port: 8080, default_pool_id: null })]);
    const pools = await octaviaPools(client, id);
    expect(pools).toEqual([expect.objectContaining({ lb_algorithm: 'ROUND_ROBIN', protocol: 'HTTP', loadbalancers: [{ id: lb.id }] })]);
    const { healthmonitor } = await octavia<{ healthmonitor: Record<string, unknown> }>(`/lbaas/healthmonitors/${pools[0].healthmonitor_id}`);
    expect(healthmonitor).toMatchObject({ type: 'HTTP', url_path: '/health', delay: 1, max_retries: 2, max_retries_down: 3 });
    const { members } = await octavia<{ members: Array<{ address: string; protocol_port: number; monitor_port: number; weight: number }> }>(`/lbaas/pools/${pools[0].id}/members`);
    expect(members).toEqual([expect.objectContaining({ address: backendAddress, protocol_port: 8080, monitor_port: 8008, weight: 1 })]);
    const { l7policies } = await octavia<{ l7policies: Array<{ id: string; action: string; redirect_pool_id: string }> }>('/lbaas/l7policies', {
      listener_id: listeners[0].id,
    });
    expect(l7policies).toEqual([expect.objectContaining({ action: 'REDIRECT_TO_POOL', redirect_pool_id: pools[0].id })]);
    const { rules } = await octavia<{ rules: Array<Record<string, unknown>> }>(`/lbaas/l7policies/${l7policies[0].id}/rules`);
    expect(rules).toEqual([expect.objectContaining({ type: 'HOST_NAME', compare_type: 'REGEX', value: '^(a\\.example|b\\.example)$' })]);
    // What the provider holds is what was asked (the check as asked, not Octavia's whole seconds).
    expect((await driver.observe(id))!.spec).toEqual({ ...spec, hosts: ['a.example', 'b.example'] });

    // Drained: weight 0, the member stays.
    await driver.drainBackend(id, { address: backendAddress, port: 8080 });
    const drained = await octavia<{ members: Array<{ weight: number }> }>(`/lbaas/pools/${pools[0].id}/members`);
    expect(drained.members.map((m) => m.weight)).toEqual([0]);
    expect((await driver.observe(id))!.backends).toEqual([expect.objectContaining({ address: backendAddress, port: 8080, state: 'draining', connections: 0 })]);

    // Every other name too: the pool is the listener's default, no rule is left.
    await driver.ensureListener({ ...spec, hosts: ['a.example', '*'] });
    const after = await octaviaListeners(client, lb.id);
    expect(after.map((l) => l.default_pool_id)).toEqual([pools[0].id]);
    expect((await octavia<{ l7policies: unknown[] }>('/lbaas/l7policies', { listener_id: after[0].id })).l7policies).toEqual([]);
    expect((await driver.observe(id))!.spec?.hosts?.sort()).toEqual(['*', 'a.example']);

    // TCP on another port with a connect check: a TCP pool (Octavia's protocol is fixed) with a TCP monitor, the members
    // as they were, on a TCP listener of that port; the HTTP listener, left serving nothing, is gone.
    await driver.ensureListener({ ...spec, protocol: 'tcp', hosts: undefined, port: 8443, check: { kind: 'connect' } });
    const tcp = await octaviaPools(client, id);
    expect(tcp).toEqual([expect.objectContaining({ protocol: 'TCP' })]);
    const monitor = await octavia<{ healthmonitor: Record<string, unknown> }>(`/lbaas/healthmonitors/${tcp[0].healthmonitor_id}`);
    expect(monitor.healthmonitor).toMatchObject({ type: 'TCP', delay: 2, max_retries: 2, max_retries_down: 3 });
    expect(await octaviaListeners(client, lb.id)).toEqual([expect.objectContaining({ protocol: 'TCP', protocol_port: 8443, default_pool_id: tcp[0].id })]);
    const seen = await driver.observe(id);
    expect(seen!.spec).toMatchObject({ protocol: 'tcp', port: 8443, check: { kind: 'connect' } });
    expect(seen!.backends).toEqual([expect.objectContaining({ address: backendAddress, port: 8080, state: 'draining' })]);
    expect(await octaviaLbs(client, spec.address)).toHaveLength(1);
    await driver.deleteListener(id);
    expect(await driver.observe(id)).toBeNull();
    expect(await octaviaLbs(client, spec.address)).toHaveLength(0);
  });

  it('listeners on one address: one load balancer, an Octavia listener per port, a pool per id, a Host policy per named id', async () => {
    const address = nextAddress();
    const [a, b, web, named, any] = [nextId(), nextId(), nextId(), nextId(), nextId()];
    const tcp = (id: string, port: number): ListenerSpec => ({ id, address, port, protocol: 'tcp', check: { kind: 'connect' } });
    const http = (id: string, hosts: string[]): ListenerSpec => ({ id, address, port: 80, protocol: 'http', hosts, check: { kind: 'connect' } });
    await driver.ensureListener(tcp(a, 5432));
    await driver.ensureListener(tcp(b, 5433));
    await driver.ensureListener(http(web, ['web.example']));
    await driver.ensureListener(http(named, ['a.example', 'b.example']));
    await driver.ensureListener(http(any, ['*']));
    for (const id of [a, b, web, named, any]) await driver.addBackend(id, { address: backendAddress, port: 3000 });
    const lbs = await octaviaLbs(client, address);
    expect(lbs).toHaveLength(1);
    const poolOf = async (id: string) => {
      const pools = await octaviaPools(client, id);
      expect(pools).toEqual([expect.objectContaining({ loadbalancers: [{ id: lbs[0].id }] })]);
      return pools[0].id;
    };
    const pools = { a: await poolOf(a), b: await poolOf(b), web: await poolOf(web), named: await poolOf(named), any: await poolOf(any) };
    const listeners = await octaviaListeners(client, lbs[0].id);
    expect(listeners).toEqual([
      expect.objectContaining({ protocol: 'HTTP', protocol_port: 80, default_pool_id: pools.any }),
      expect.objectContaining({ protocol: 'TCP', protocol_port: 5432, default_pool_id: pools.a }),
      expect.objectContaining({ protocol: 'TCP', protocol_port: 5433, default_pool_id: pools.b }),
    ]);
    const policies = async () =>
      (await octavia<{ l7policies: Array<{ redirect_pool_id: string }> }>('/lbaas/l7policies', { listener_id: listeners[0].id })).l7policies.map((p) => p.redirect_pool_id).sort();
    expect(await policies()).toEqual([pools.web, pools.named].sort());
    for (const id of [a, b, web, named, any]) expect((await driver.observe(id))!.status).toBe('ok');

    // One id goes: its pool and policy, nothing of the others.
    await driver.deleteListener(named);
    expect(await octaviaPools(client, named)).toEqual([]);
    expect(await policies()).toEqual([pools.web]);
    await driver.deleteListener(b);
    expect((await octaviaListeners(client, lbs[0].id)).map((l) => l.protocol_port)).toEqual([80, 5432]);
    await driver.deleteListener(any);
    expect(await octaviaListeners(client, lbs[0].id)).toEqual([
      expect.objectContaining({ protocol_port: 80, default_pool_id: null }),
      expect.objectContaining({ protocol_port: 5432 }),
    ]);
    for (const id of [a, web]) expect((await driver.observe(id))!.status).toBe('ok');
    // The last one goes: the address is given back.
    await driver.deleteListener(a);
    await driver.deleteListener(web);
    expect(await octaviaLbs(client, address)).toHaveLength(0);
  });

  it('refuses TLS (Octavia would need a Barbican secret) and what Octavia cannot count, and makes nothing', async () => {
    const id = nextId();
    const address = nextAddress();
    const tls = await rejection(driver.ensureListener({ id, address, port: 443, protocol: 'tcp', tls: { certificateId: 1 }, check: { kind: 'connect' } }));
    expect(tls).toMatchObject({ code: 'invalid', message: expect.stringMatching(/Barbican/) });
    const checks = await rejection(driver.ensureListener({ id, address, port: 443, protocol: 'tcp', check: { kind: 'connect', fall: 11 } }));
    expect(checks).toMatchObject({ code: 'invalid' });
    const nowhere = await rejection(driver.ensureListener({ id, address: '192.0.2.77', port: 443, protocol: 'tcp', check: { kind: 'connect' } }));
    expect(nowhere).toMatchObject({ code: 'invalid', message: expect.stringContaining('192.0.2.77') });
    expect(await driver.observe(id)).toBeNull();
    expect(await octaviaLbs(client, address)).toHaveLength(0);
    expect(await octaviaPools(client, id)).toHaveLength(0);
  });

  it("a listener moved to another address goes to that address's load balancer, its backends kept as they were", async () => {
    const [id, stays] = [nextId(), nextId()];
    const [from, to] = [nextAddress(), nextAddress()];
    const spec: ListenerSpec = { id, address: from, port: 80, protocol: 'tcp', check: { kind: 'connect' } };
    await driver.ensureListener(spec);
    await driver.addBackend(id, { address: backendAddress, port: 1 });
    await driver.addBackend(id, { address: backendAddress, port: 2 });
    await driver.drainBackend(id, { address: backendAddress, port: 2 });
    // Another listener already there, on another port.
    await driver.ensureListener({ id: stays, address: to, port: 81, protocol: 'tcp', check: { kind: 'connect' } });
    const [there] = await octaviaLbs(client, to);
    await driver.ensureListener({ ...spec, address: to });
    expect(await octaviaLbs(client, from)).toHaveLength(0);
    expect(await octaviaLbs(client, to)).toEqual([expect.objectContaining({ id: there.id })]);
    expect(await octaviaPools(client, id)).toEqual([expect.objectContaining({ loadbalancers: [{ id: there.id }] })]);
    const seen = await driver.observe(id);
    expect(seen!.spec).toMatchObject({ address: to, port: 80 });
    expect(seen!.backends.map((b) => `${b.port} ${b.state}`).sort()).toEqual(['1 active', '2 draining']);
    // Refused before anything changes (for a later run: a tcp port another holds is waited for): the port the other holds there.
    await expect(driver.ensureListener({ ...spec, port: 81, address: to })).rejects.toMatchObject({ code: 'retryable', message: expect.stringContaining(`listener ${stays}'s`) });
    expect((await driver.observe(id))!.spec).toMatchObject({ address: to, port: 80 });
    await driver.deleteListener(id);
    await driver.deleteListener(stays);
  });
});

describe('openstack load balancers under faults', () => {
  const proxy = new FaultInjectingProxy();
  let faulty: OpenStackClient;
  let onProxy: OpenStackLoadBalancerDriver;
  /** Keystone through the proxy, for more clients of its own. */
  let authUrl = '';
  const listener = (id: string, address: string): ListenerSpec => ({ id, address, port: 5432, protocol: 'tcp', check: { kind: 'connect' } });

  beforeAll(async () => {
    authUrl = await proxy.start();
    faulty = new OpenStackClient({ ...testbedCloud(), authUrl });
    onProxy = new OpenStackLoadBalancerDriver(faulty);
  });
  afterEach(() => proxy.clear());
  afterAll(() => proxy.close());

  it('a create whose answer was lost is finished by the repeat: one load balancer, counted in Octavia', async () => {
    const [id, address] = [nextId(), nextAddress()];
    // The POST reached Octavia; the job died before it heard the answer.
    proxy.inject({ method: 'POST', path: /^\/v2\/lbaas\/loadbalancers$/, status: 503, times: 1, afterForward: true });
    await expect(onProxy.ensureListener(listener(id, address))).rejects.toMatchObject({ code: 'retryable' });
    expect(await octaviaLbs(client, address)).toHaveLength(1);
    await onProxy.ensureListener(listener(id, address));
    await onProxy.addBackend(id, { address: backendAddress, port: 5432 });
    // None made and deleted again either: one POST reached Octavia.
    expect(await octaviaLbs(client, address, true)).toHaveLength(1);
    expect(proxy.calls.filter((c) => c.method === 'POST' && /^\/v2\/lbaas\/loadbalancers$/.test(c.path))).toHaveLength(1);
    expect(proxy.calls.filter((c) => c.method === 'POST' && c.path === '/v2/lbaas/pools')).toHaveLength(1);
    expect((await onProxy.observe(id))!.status).toBe('ok');
    await onProxy.deleteListener(id);
  });

  it('runs that race both create; the next looks keep one load balancer per address, one pool per id', async () => {
    const address = nextAddress();
    const [id, other] = [nextId(), nextId()];
    const spec = listener(id, address);
    const beside = { ...listener(other, address), port: 5433 };
    // Two runs of one id, and a run of another id on the same address: each may create the load balancer.
    await Promise.allSettled([driver.ensureListener(spec), driver.ensureListener(spec), driver.ensureListener(beside)]);
    // A run that worked on a copy being deleted was told to retry (retryable): its job's retry converges.
    await waitFor(
      'one load balancer left, with both',
      async () => {
        const settled = await Promise.allSettled([driver.ensureListener(spec), driver.ensureListener(beside)]);
        return settled.every((r) => r.status === 'fulfilled') && (await octaviaLbs(client, address)).length === 1;
      },
      { timeoutMs: 240_000, intervalMs: 1_000 },
    );
    const [lb] = await octaviaLbs(client, address);
    for (const one of [id, other]) {
      expect(await octaviaPools(client, one)).toEqual([expect.objectContaining({ loadbalancers: [{ id: lb.id }] })]);
      expect((await driver.observe(one))!.status).toBe('ok');
    }
    await driver.deleteListener(id);
    await driver.deleteListener(other);
  });

  it('two workers changing one address at once take turns: one load balancer made, no change refused as busy, every id served', async () => {
    const address = nextAddress();
    // Two worker processes: drivers and clients of their own (so their own in-process turns), sharing only PostgreSQL, as a deployment does.
    const workers = [0, 1].map(() => new OpenStackLoadBalancerDriver(new OpenStackClient({ ...testbedCloud(), authUrl }), { shared: new PostgresTurns(TURNS_URL, 600_000) }));
    const ids = [nextId(), nextId(), nextId(), nextId(), nextId(), nextId()];
    const made = await Promise.allSettled(
      ids.map(async (id, i) => {
        const worker = workers[i % 2];
        await worker.ensureListener({ ...listener(id, address), port: 6001 + i });
        await worker.addBackend(id, { address: backendAddress, port: 7001 + i });
      }),
    );
    expect(made.filter((r) => r.status === 'rejected')).toEqual([]);
    // Counted at Octavia's door: without turns both workers create the load balancer (one copy then deleted) and meet 409s.
    expect(proxy.calls.filter((c) => c.method === 'POST' && c.path === '/v2/lbaas/loadbalancers')).toHaveLength(1);
    expect(proxy.calls.filter((c) => c.status === 409)).toEqual([]);
    expect(await octaviaLbs(client, address, true)).toEqual([expect.objectContaining({ provisioning_status: 'ACTIVE' })]);
    for (const id of ids) expect((await driver.observe(id))!.status).toBe('ok');
    await Promise.all(ids.map((id, i) => workers[i % 2].deleteListener(id)));
    expect(proxy.calls.filter((c) => c.status === 409)).toEqual([]);
    expect(await octaviaLbs(client, address)).toEqual([]);
  });

  it("Octavia's 409 immutable is waited out: the member is added once, the pool made once", async () => {
    const [id, address] = [nextId(), nextAddress()];
    const immutable = (what: string) => ({ faultcode: 'Client', faultstring: `${what} is immutable and cannot be updated.`, debuginfo: null });
    // A create refused as busy: looked at again, then made once.
    proxy.inject({ method: 'POST', path: /^\/v2\/lbaas\/pools$/, status: 409, times: 1, body: immutable('Load Balancer') });
    await onProxy.ensureListener(listener(id, address));
    const pools = await octaviaPools(client, id);
    expect(pools).toHaveLength(1);
    expect(proxy.calls.filter((c) => c.method === 'POST' && c.path === '/v2/lbaas/pools').map((c) => c.injected)).toEqual([true, false]);
    // A member refused as busy: sent again.
    proxy.inject({ method: 'POST', path: /^\/v2\/lbaas\/pools\/[^/]+\/members$/, status: 409, times: 1, body: immutable('Load Balancer') });
    await onProxy.addBackend(id, { address: backendAddress, port: 5432 });
    const posts = proxy.calls.filter((c) => c.method === 'POST' && /\/members$/.test(c.path));
    expect(posts.map((c) => c.injected)).toEqual([true, false]);
    const { members } = await client.get<{ members: unknown[] }>('load-balancer', `/lbaas/pools/${pools[0].id}/members`);
    expect(members).toHaveLength(1);
    await onProxy.deleteListener(id);
  });

  it('a load balancer that goes to ERROR under a change is a retryable DriverError that says so, for the next ensure', async () => {
    const [id, address] = [nextId(), nextAddress()];
    await onProxy.ensureListener(listener(id, address));
    const [lb] = await octaviaLbs(client, address);
    const { loadbalancer } = await client.get<{ loadbalancer: Record<string, unknown> }>('load-balancer', `/lbaas/loadbalancers/${lb.id}`);
    // A double of Octavia's answer once the run looked up the address (its list still says ACTIVE): the load balancer as
    // Octavia shows one whose change failed meanwhile.
    const inError = { loadbalancer: { ...loadbalancer, provisioning_status: 'ERROR', operating_status: 'ERROR' } };
    proxy.inject({ method: 'GET', path: new RegExp(`^/v2/lbaas/loadbalancers/${lb.id}$`), status: 200, times: 1_000, body: inError });
    for (const call of [() => onProxy.ensureListener({ ...listener(id, address), port: 5433 }), () => onProxy.addBackend(id, { address: backendAddress, port: 5432 })]) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(DriverError);
      expect(err).toMatchObject({ code: 'retryable', message: expect.stringContaining(`load balancer ${lb.id} of listener ${id} went to ERROR`) });
    }
    expect((await onProxy.observe(id))!.status).toMatch(/ERROR/);
    proxy.clear();
    await onProxy.deleteListener(id);
    await waitFor('the load balancer to go', async () => (await octaviaLbs(client, address)).length === 0, { timeoutMs: 120_000, intervalMs: 1_000 });
  });
});

describe('openstack load balancers in ERROR', () => {
  const tcp = (id: string, address: string, port: number): ListenerSpec => ({ id, address, port, protocol: 'tcp', check: { kind: 'connect' } });

  it("a load balancer Octavia put in ERROR is replaced by the next ensure on its address; the address's other ids go with it until ensured again", async () => {
    const [id, other, address] = [nextId(), nextId(), nextAddress()];
    await driver.ensureListener(tcp(id, address, 5432));
    await driver.ensureListener(tcp(other, address, 5433));
    await driver.addBackend(id, { address: backendAddress, port: 5432 });
    await driver.addBackend(other, { address: backendAddress, port: 5433 });
    const [old] = await octaviaLbs(client, address);
    failTestbedLoadBalancer(old.id);
    expect((await driver.observe(id))!.status).toBe(`the Octavia load balancer ${old.id} is in ERROR`);

    await driver.ensureListener(tcp(id, address, 5432));
    const lbs = await octaviaLbs(client, address, true);
    expect(lbs).toEqual([expect.objectContaining({ provisioning_status: 'ACTIVE' })]);
    expect(lbs[0].id).not.toBe(old.id);
    expect(await octaviaPools(client, id)).toEqual([expect.objectContaining({ loadbalancers: [{ id: lbs[0].id }] })]);
    // Its backend came along.
    expect(await driver.observe(id)).toMatchObject({ status: 'ok', backends: [expect.objectContaining({ address: backendAddress, port: 5432, state: 'active' })] });
    // The other id went with the old one: what its reconciler sees, and makes again.
    expect(await driver.observe(other)).toBeNull();
    await driver.ensureListener(tcp(other, address, 5433));
    await driver.addBackend(other, { address: backendAddress, port: 5433 });
    for (const one of [id, other]) {
      expect(await octaviaPools(client, one)).toEqual([expect.objectContaining({ loadbalancers: [{ id: lbs[0].id }] })]);
      expect((await driver.observe(one))!.status).toBe('ok');
    }
    await driver.deleteListener(id);
    await driver.deleteListener(other);
    expect(await octaviaLbs(client, address)).toHaveLength(0);
  });

  it('a pool Octavia put in ERROR on a healthy load balancer is made again by the next ensure, its backend carried over; the load balancer stays', async () => {
    const [id, address] = [nextId(), nextAddress()];
    await driver.ensureListener(tcp(id, address, 5432));
    await driver.addBackend(id, { address: backendAddress, port: 5432 });
    const [lb] = await octaviaLbs(client, address);
    const [failed] = await octaviaPools(client, id);
    failTestbedOctaviaObject('pool', failed.id);
    expect((await driver.observe(id))!.status).toBe(`the Octavia pool ${failed.id} is in ERROR`);

    await driver.ensureListener(tcp(id, address, 5432));
    const pools = await octaviaPools(client, id);
    expect(pools).toEqual([expect.objectContaining({ provisioning_status: 'ACTIVE', loadbalancers: [{ id: lb.id }] })]);
    expect(pools[0].id).not.toBe(failed.id);
    expect(await driver.observe(id)).toMatchObject({ status: 'ok', backends: [expect.objectContaining({ address: backendAddress, port: 5432, state: 'active' })] });
    expect((await octaviaLbs(client, address)).map((l) => l.id)).toEqual([lb.id]);
    await driver.deleteListener(id);
    expect(await octaviaLbs(client, address)).toHaveLength(0);
  });

  it("an HTTP listener in ERROR is made again by the next ensure on its port; the other names' rules on it are made again by theirs", async () => {
    const address = nextAddress();
    const [web, other] = [nextId(), nextId()];
    const http = (id: string, host: string): ListenerSpec => ({ id, address, port: 80, protocol: 'http', hosts: [host], check: { kind: 'connect' } });
    await driver.ensureListener(http(web, 'web.example'));
    await driver.ensureListener(http(other, 'other.example'));
    for (const id of [web, other]) await driver.addBackend(id, { address: backendAddress, port: 3000 });
    const [lb] = await octaviaLbs(client, address);
    const [failed] = await octaviaListeners(client, lb.id);
    failTestbedOctaviaObject('listener', failed.id);
    expect((await driver.observe(web))!.status).toBe(`the Octavia listener ${failed.id} is in ERROR`);

    await driver.ensureListener(http(web, 'web.example'));
    await driver.ensureListener(http(other, 'other.example'));
    const listeners = await octaviaListeners(client, lb.id);
    expect(listeners).toEqual([expect.objectContaining({ protocol: 'HTTP', protocol_port: 80 })]);
    expect(listeners[0].id).not.toBe(failed.id);
    for (const id of [web, other]) {
      expect(await driver.observe(id)).toMatchObject({ status: 'ok', backends: [expect.objectContaining({ address: backendAddress, port: 3000, state: 'active' })] });
    }
    expect((await octaviaLbs(client, address)).map((l) => l.id)).toEqual([lb.id]);
    await driver.deleteListener(web);
    await driver.deleteListener(other);
    expect(await octaviaLbs(client, address)).toHaveLength(0);
  });

  it('deleting an id on a load balancer in ERROR deletes the load balancer: Octavia takes no other change of it', async () => {
    const [id, address] = [nextId(), nextAddress()];
    await driver.ensureListener(tcp(id, address, 5432));
    await driver.addBackend(id, { address: backendAddress, port: 5432 });
    const [lb] = await octaviaLbs(client, address);
    failTestbedLoadBalancer(lb.id);
    const started = Date.now();
    await driver.deleteListener(id);
    expect(await driver.observe(id)).toBeNull();
    await waitFor('the load balancer to go', async () => (await octaviaLbs(client, address, true)).length === 0, { timeoutMs: 60_000, intervalMs: 1_000 });
    // Not the refused changes waited out (Octavia answers each 409 "immutable").
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
