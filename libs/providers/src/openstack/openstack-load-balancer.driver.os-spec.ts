import { DriverError, ListenerSpec, MARK, OpenStackClient } from '@stratus/providers';
import { FaultInjectingProxy, loadBalancerContract, testbedClient, testbedCloud, waitFor } from '@stratus/testing';
import { randomBytes } from 'node:crypto';
import { OpenStackLoadBalancerDriver } from './openstack-load-balancer.driver';

/**
 * The Octavia driver against the testbed's Octavia (no-op amphora, compute
 * and network drivers: every object goes ACTIVE, no traffic flows). Its
 * no-op network driver reads no Neutron port, so the listeners here listen
 * on an address of a subnet made for the run (the VIP on the subnet, not
 * on a port). The TLS case of the contract is skipped: the testbed has no
 * Barbican, and the driver refuses TLS (checked below).
 */
const client = testbedClient();
const driver = new OpenStackLoadBalancerDriver(client);
/** Every listener of this run starts with it, so the cleanup touches nothing else. */
const run = `oslb-${randomBytes(4).toString('hex')}`;
let n = 0;
const nextId = () => `${run}-${++n}`;
let networkId = '';
/** The run's subnet: 10.241.<octet>.0/24. */
let octet = 0;
/** Octavia gives an address to one load balancer: each listener its own (.10 to .249), the backends .5. */
const addressOf = (id: string) => `10.241.${octet}.${10 + (Number(id.slice(run.length + 1)) % 240)}`;
let backendAddress = '';

interface Lb {
  id: string;
  name: string;
  provisioning_status: string;
}

/** The load balancers Octavia itself lists for a listener id, those being deleted aside unless `dying`. */
async function octaviaLbs(c: OpenStackClient, id: string, dying = false): Promise<Lb[]> {
  const { loadbalancers } = await c.get<{ loadbalancers: Lb[] }>('load-balancer', '/lbaas/loadbalancers', { query: { name: MARK.name(id) } });
  return loadbalancers.filter((lb) => lb.provisioning_status !== 'DELETED' && (dying || lb.provisioning_status !== 'PENDING_DELETE'));
}

async function rejection(promise: Promise<unknown>): Promise<DriverError> {
  try {
    await promise;
  } catch (err) {
    return err as DriverError;
  }
  throw new Error('expected a rejection');
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
  const mine = loadbalancers.filter((lb) => lb.name.startsWith(MARK.name(run)));
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
  () => ({ driver, id: nextId, tls: { address: `10.241.${octet}.9`, port: 443, certificateId: 1 }, address: addressOf, backendAddress }),
  // No Barbican on the testbed, and the driver keeps no certificate there: TLS is refused (below).
  { skip: ['tls'] },
);

describe('openstack load balancers: the Octavia mapping', () => {
  const octavia = <T>(path: string, query?: Record<string, string>) => client.get<T>('load-balancer', path, { query });

  it('an HTTP listener by Host: listener, ROUND_ROBIN pool, HTTP monitor from the check, one Host rule; ANY_HOST makes the pool the default', async () => {
    const id = nextId();
    const spec: ListenerSpec = {
      id,
      address: addressOf(id),
      port: 8080,
      protocol: 'http',
      hosts: ['b.example', 'a.example'],
      check: { kind: 'http', path: '/health', port: 8008, intervalMs: 250, fall: 3, rise: 2 },
    };
    await driver.ensureListener(spec);
    await driver.addBackend(id, { address: backendAddress, port: 8080 });
    const [lb] = await octaviaLbs(client, id);
    const { listeners } = await octavia<{ listeners: Array<{ id: string; protocol: string; protocol_port: number; default_pool_id: string | null }> }>('/lbaas/listeners', {
      loadbalancer_id: lb.id,
    });
    expect(listeners).toEqual([expect.objectContaining({ protocol: 'HTTP', protocol_port: 8080, default_pool_id: null })]);
    const { pools } = await octavia<{ pools: Array<{ id: string; lb_algorithm: string; protocol: string; healthmonitor_id: string }> }>('/lbaas/pools', {
      loadbalancer_id: lb.id,
    });
    expect(pools).toEqual([expect.objectContaining({ lb_algorithm: 'ROUND_ROBIN', protocol: 'HTTP' })]);
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
    const after = await octavia<{ listeners: Array<{ id: string; default_pool_id: string | null }> }>('/lbaas/listeners', { loadbalancer_id: lb.id });
    expect(after.listeners.map((l) => l.default_pool_id)).toEqual([pools[0].id]);
    expect((await octavia<{ l7policies: unknown[] }>('/lbaas/l7policies', { listener_id: after.listeners[0].id })).l7policies).toEqual([]);
    expect((await driver.observe(id))!.spec?.hosts?.sort()).toEqual(['*', 'a.example']);

    // A TCP connect check instead: another monitor, of type TCP; the members stay.
    await driver.ensureListener({ ...spec, protocol: 'tcp', hosts: undefined, port: 8443, check: { kind: 'connect' } });
    const tcp = await octavia<{ pools: Array<{ id: string; protocol: string; healthmonitor_id: string }> }>('/lbaas/pools', { loadbalancer_id: lb.id });
    expect(tcp.pools).toEqual([expect.objectContaining({ protocol: 'TCP' })]);
    const monitor = await octavia<{ healthmonitor: Record<string, unknown> }>(`/lbaas/healthmonitors/${tcp.pools[0].healthmonitor_id}`);
    expect(monitor.healthmonitor).toMatchObject({ type: 'TCP', delay: 2, max_retries: 2, max_retries_down: 3 });
    const seen = await driver.observe(id);
    expect(seen!.spec).toMatchObject({ protocol: 'tcp', port: 8443, check: { kind: 'connect' } });
    expect(seen!.backends).toEqual([expect.objectContaining({ address: backendAddress, port: 8080, state: 'draining' })]);
    expect(await octaviaLbs(client, id)).toHaveLength(1);
    await driver.deleteListener(id);
    expect(await driver.observe(id)).toBeNull();
  });

  it('refuses TLS (Octavia would need a Barbican secret) and what Octavia cannot count, and makes nothing', async () => {
    const id = nextId();
    const address = addressOf(id);
    const tls = await rejection(driver.ensureListener({ id, address, port: 443, protocol: 'tcp', tls: { certificateId: 1 }, check: { kind: 'connect' } }));
    expect(tls).toMatchObject({ code: 'invalid', message: expect.stringMatching(/Barbican/) });
    const checks = await rejection(driver.ensureListener({ id, address, port: 443, protocol: 'tcp', check: { kind: 'connect', fall: 11 } }));
    expect(checks).toMatchObject({ code: 'invalid' });
    const nowhere = await rejection(driver.ensureListener({ id, address: '192.0.2.77', port: 443, protocol: 'tcp', check: { kind: 'connect' } }));
    expect(nowhere).toMatchObject({ code: 'invalid', message: expect.stringContaining('192.0.2.77') });
    expect(await driver.observe(id)).toBeNull();
    expect(await octaviaLbs(client, id)).toHaveLength(0);
  });

  it('a listener moved to another address is a new load balancer there, its backends kept as they were', async () => {
    const id = nextId();
    const spec: ListenerSpec = { id, address: addressOf(id), port: 80, protocol: 'tcp', check: { kind: 'connect' } };
    await driver.ensureListener(spec);
    await driver.addBackend(id, { address: backendAddress, port: 1 });
    await driver.addBackend(id, { address: backendAddress, port: 2 });
    await driver.drainBackend(id, { address: backendAddress, port: 2 });
    const [before] = await octaviaLbs(client, id);
    const moved = `10.241.${octet}.250`;
    await driver.ensureListener({ ...spec, address: moved });
    const after = await octaviaLbs(client, id);
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(before.id);
    const seen = await driver.observe(id);
    expect(seen!.spec).toMatchObject({ address: moved, port: 80 });
    expect(seen!.backends.map((b) => `${b.port} ${b.state}`).sort()).toEqual(['1 active', '2 draining']);
    await driver.deleteListener(id);
  });

  it("refuses a second listener on an address another listener's load balancer holds", async () => {
    const [first, second] = [nextId(), nextId()];
    const spec: ListenerSpec = { id: first, address: addressOf(first), port: 80, protocol: 'tcp', check: { kind: 'connect' } };
    await driver.ensureListener(spec);
    const taken = await rejection(driver.ensureListener({ ...spec, id: second, port: 81 }));
    expect(taken).toMatchObject({ code: 'invalid', message: expect.stringContaining(`listener ${first}`) });
    expect(await octaviaLbs(client, second)).toHaveLength(0);
    await driver.deleteListener(first);
    // Given back: the address may be another's.
    await driver.ensureListener({ ...spec, id: second });
    expect(await octaviaLbs(client, second)).toHaveLength(1);
    await driver.deleteListener(second);
  });
});

describe('openstack load balancers under faults', () => {
  const proxy = new FaultInjectingProxy();
  let faulty: OpenStackClient;
  let onProxy: OpenStackLoadBalancerDriver;
  const listener = (id: string): ListenerSpec => ({ id, address: addressOf(id), port: 5432, protocol: 'tcp', check: { kind: 'connect' } });

  beforeAll(async () => {
    const authUrl = await proxy.start();
    faulty = new OpenStackClient({ ...testbedCloud(), authUrl });
    onProxy = new OpenStackLoadBalancerDriver(faulty);
  });
  afterEach(() => proxy.clear());
  afterAll(() => proxy.close());

  it('a create whose answer was lost is finished by the repeat: one load balancer, counted in Octavia', async () => {
    const id = nextId();
    // The POST reached Octavia; the job died before it heard the answer.
    proxy.inject({ method: 'POST', path: /^\/v2\/lbaas\/loadbalancers$/, status: 503, times: 1, afterForward: true });
    await expect(onProxy.ensureListener(listener(id))).rejects.toMatchObject({ code: 'retryable' });
    expect(await octaviaLbs(client, id)).toHaveLength(1);
    await onProxy.ensureListener(listener(id));
    await onProxy.addBackend(id, { address: backendAddress, port: 5432 });
    // None made and deleted again either: one POST reached Octavia.
    expect(await octaviaLbs(client, id, true)).toHaveLength(1);
    expect(proxy.calls.filter((c) => c.method === 'POST' && /^\/v2\/lbaas\/loadbalancers$/.test(c.path))).toHaveLength(1);
    expect((await onProxy.observe(id))!.status).toBe('ok');
    await onProxy.deleteListener(id);
  });

  it('two runs that race both create; the next look keeps one load balancer, with one pool', async () => {
    const id = nextId();
    await Promise.all([driver.ensureListener(listener(id)), driver.ensureListener(listener(id))]);
    await waitFor(
      'one load balancer left',
      async () => {
        await driver.observe(id);
        return (await octaviaLbs(client, id)).length === 1;
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await driver.ensureListener(listener(id));
    const [lb] = await octaviaLbs(client, id);
    const { pools } = await client.get<{ pools: unknown[] }>('load-balancer', '/lbaas/pools', { query: { loadbalancer_id: lb.id } });
    expect(pools).toHaveLength(1);
    await driver.deleteListener(id);
  });

  it("Octavia's 409 immutable is waited out: the member is added once, the pool made once", async () => {
    const id = nextId();
    const immutable = (what: string) => ({ faultcode: 'Client', faultstring: `${what} is immutable and cannot be updated.`, debuginfo: null });
    // A create refused as busy: looked at again, then made once.
    proxy.inject({ method: 'POST', path: /^\/v2\/lbaas\/pools$/, status: 409, times: 1, body: immutable('Load Balancer') });
    await onProxy.ensureListener(listener(id));
    const [lb] = await octaviaLbs(client, id);
    const { pools } = await client.get<{ pools: Array<{ id: string }> }>('load-balancer', '/lbaas/pools', { query: { loadbalancer_id: lb.id } });
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

  it('a load balancer Octavia put in ERROR is a terminal DriverError that says so; delete still works', async () => {
    const id = nextId();
    await onProxy.ensureListener(listener(id));
    const [lb] = await octaviaLbs(client, id);
    const { loadbalancer } = await client.get<{ loadbalancer: Record<string, unknown> }>('load-balancer', `/lbaas/loadbalancers/${lb.id}`);
    // A double of Octavia's answer (the no-op drivers never fail): the load balancer as Octavia shows one whose change failed.
    const inError = { loadbalancer: { ...loadbalancer, provisioning_status: 'ERROR', operating_status: 'ERROR' } };
    proxy.inject({ method: 'GET', path: new RegExp(`^/v2/lbaas/loadbalancers/${lb.id}$`), status: 200, times: 1_000, body: inError });
    proxy.inject({ method: 'GET', path: /^\/v2\/lbaas\/loadbalancers\?/, status: 200, times: 1_000, body: { loadbalancers: [inError.loadbalancer] } });
    for (const call of [() => onProxy.ensureListener(listener(id)), () => onProxy.addBackend(id, { address: backendAddress, port: 5432 })]) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(DriverError);
      expect(err.terminal).toBe(true);
      expect(err.message).toMatch(new RegExp(`load balancer ${lb.id} of listener ${id} went to ERROR`));
    }
    expect((await onProxy.observe(id))!.status).toMatch(/ERROR/);
    await onProxy.deleteListener(id);
    proxy.clear();
    await waitFor('the load balancer to go', async () => (await octaviaLbs(client, id)).length === 0, { timeoutMs: 120_000, intervalMs: 1_000 });
    expect(await onProxy.observe(id)).toBeNull();
  });
});
