import { DriverError, MARK, OpenStackClient, OpenStackError, serversOf } from '@stratus/providers';
import { FaultInjectingProxy, testbedClient, testbedCloud, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { OpenStackComputeDriver } from './openstack-compute.driver';
import { OpenStackVolumeDriver } from './openstack-volume.driver';

/** The client's own behaviour against the testbed: tokens, retries, quota errors, creates under faults. */
const admin = testbedClient('stratus-testbed-admin');

async function rejection(promise: Promise<unknown>): Promise<OpenStackError> {
  try {
    await promise;
  } catch (err) {
    return err as OpenStackError;
  }
  throw new Error('expected a rejection');
}

async function stratusUserId(): Promise<string> {
  const { users } = await admin.get<{ users: Array<{ id: string }> }>('identity', '/users', { query: { name: 'stratus' } });
  return users[0].id;
}

describe('openstack client: Keystone', () => {
  it('renews its token before it expires, without a failed call', async () => {
    let clock = Date.now();
    const client = testbedClient('stratus-testbed', { renewBeforeMs: 60_000, now: () => clock });
    await client.get('compute', '/flavors');
    expect(client.authentications).toBe(1);
    const expiresAt = client.tokenExpiresAt!;
    // Still a minute and more to go: the same token.
    clock = expiresAt - 61_000;
    await client.get('compute', '/flavors');
    expect(client.authentications).toBe(1);
    // Within the minute before expiry: a new token first.
    clock = expiresAt - 59_000;
    await client.get('compute', '/flavors');
    expect(client.authentications).toBe(2);
  });

  it('a token revoked mid-job (401) is replaced once and the call goes through', async () => {
    const client = testbedClient();
    await client.get('compute', '/flavors');
    const token = (client as unknown as { token: { value: string } }).token.value;
    await admin.request('identity', 'DELETE', '/auth/tokens', { headers: { 'X-Subject-Token': token } });
    // Asked of Keystone itself: the other services cache a token's validation for minutes.
    const { projects } = await client.get<{ projects: unknown[] }>('identity', '/auth/projects');
    expect(projects.length).toBeGreaterThan(0);
    expect(client.authentications).toBe(2);
  });

  it('authenticates with an application credential, scoped to its project', async () => {
    const user = await stratusUserId();
    const own = testbedClient();
    const secret = randomUUID();
    const { application_credential: cred } = await own.post<{ application_credential: { id: string } }>('identity', `/users/${user}/application_credentials`, {
      application_credential: { name: `test-${randomUUID()}`, secret },
    });
    try {
      const client = new OpenStackClient({ ...testbedCloud(), auth: { kind: 'application_credential', id: cred.id, secret } });
      expect(await client.projectId()).toBe(await own.projectId());
      await client.get('compute', '/flavors');
      const wrong = new OpenStackClient({ ...testbedCloud(), auth: { kind: 'application_credential', id: cred.id, secret: 'wrong' } });
      const err = await rejection(wrong.get('compute', '/flavors'));
      expect(err).toMatchObject({ code: 'invalid', status: 401 });
      expect(err.message).not.toContain('wrong');
    } finally {
      await own.delete('identity', `/users/${user}/application_credentials/${cred.id}`);
    }
  });

  it('finds each service in the catalog by type, alias and interface, and says which one is missing', async () => {
    const client = testbedClient();
    expect(await client.endpoint('network')).toBe('http://127.0.0.1:9696/v2.0');
    expect(await client.endpoint('block-storage')).toBe(`http://127.0.0.1:8776/v3/${await client.projectId()}`);
    const elsewhere = new OpenStackClient({ ...testbedCloud(), regionName: 'Nowhere' });
    await expect(elsewhere.endpoint('compute')).rejects.toThrow('the OpenStack catalog has no public compute endpoint in region Nowhere');
  });
});

describe('openstack client: quota errors are terminal and say so', () => {
  let project: string;
  let client: OpenStackClient;
  let network: string;

  beforeAll(async () => {
    ({
      project: { id: project },
    } = await admin.post<{ project: { id: string } }>('identity', '/projects', {
      project: { name: `quota-${randomUUID()}`, domain_id: 'default' },
    }));
    const { users } = await admin.get<{ users: Array<{ id: string }> }>('identity', '/users', { query: { name: 'admin' } });
    const { roles } = await admin.get<{ roles: Array<{ id: string }> }>('identity', '/roles', { query: { name: 'member' } });
    await admin.put('identity', `/projects/${project}/users/${users[0].id}/roles/${roles[0].id}`, undefined);
    const cloud = testbedCloud('stratus-testbed-admin');
    client = new OpenStackClient({ ...cloud, auth: { ...cloud.auth, projectName: undefined, projectId: project } as typeof cloud.auth });
    // What each service counts, set to none.
    await admin.put('compute', `/os-quota-sets/${project}`, { quota_set: { instances: 0 } });
    await admin.put('block-storage', `/os-quota-sets/${project}`, { quota_set: { volumes: 0 } });
    ({
      network: { id: network },
    } = await client.post<{ network: { id: string } }>('network', '/networks', { network: { name: 'quota-net' } }));
    await client.post('network', '/subnets', { subnet: { network_id: network, cidr: '10.9.0.0/24', ip_version: 4 } });
    await admin.put('network', `/quotas/${project}`, { quota: { port: 0 } });
  });

  afterAll(async () => {
    await client.delete('network', `/networks/${network}`);
    await admin.delete('identity', `/projects/${project}`);
  });

  it('Nova 403: no server is booted, and the reason names the quota', async () => {
    const { images } = await admin.get<{ images: Array<{ id: string }> }>('image', '/images', { query: { name: 'debian-12' } });
    const compute = new OpenStackComputeDriver(client, { bootTimeoutMs: 60_000, network });
    const id = randomUUID();
    const err = await rejection(compute.create({ id, imageId: images[0].id, address: '', port: 1, userData: null, flavor: { vcpus: 1, ramMb: 512 } }));
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ code: 'quota', status: 403, service: 'compute' });
    expect(err.terminal).toBe(true);
    expect(err.message).toMatch(/^compute quota exceeded: (Quota exceeded for instances|Maximum number of ports exceeded)/);
    expect(await serversOf(client, id)).toHaveLength(0);
  });

  it('Cinder 413 (overLimit, Retry-After 0) is a quota error, not throttling', async () => {
    const err = await rejection(new OpenStackVolumeDriver(client).create(randomUUID(), 1));
    expect(err).toMatchObject({ code: 'quota', status: 413, service: 'block-storage' });
    expect(err.message).toMatch(/^block-storage quota exceeded: .*quota/i);
  });

  it('Neutron 409 OverQuota is a quota error', async () => {
    const err = await rejection(client.post('network', '/ports', { port: { network_id: network } }));
    expect(err).toMatchObject({ code: 'quota', status: 409, service: 'network', fault: 'OverQuota' });
  });
});

describe('openstack client: throttling and outages (through the fault-injecting proxy)', () => {
  const proxy = new FaultInjectingProxy();
  let client: OpenStackClient;

  beforeAll(async () => {
    const authUrl = await proxy.start();
    client = new OpenStackClient({ ...testbedCloud(), authUrl }, { maxAttempts: 4 });
  });
  afterEach(() => proxy.clear());
  afterAll(() => proxy.close());

  const tries = (path: RegExp) => proxy.calls.filter((c) => path.test(c.path)).length;

  it('waits out 503s as Retry-After says (seconds), then gets the answer', async () => {
    proxy.inject({ method: 'GET', path: /^\/v2\.1\/flavors/, status: 503, retryAfter: '1', times: 2 });
    const { flavors } = await client.get<{ flavors: unknown[] }>('compute', '/flavors');
    expect(flavors.length).toBeGreaterThan(0);
    expect(proxy.calls.filter((c) => c.path.startsWith('/v2.1/flavors')).map((c) => c.status)).toEqual([503, 503, 200]);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    proxy.inject({ method: 'GET', path: /^\/v2\.0\/networks/, status: 429, retryAfter: new Date(Date.now() + 1500).toUTCString(), times: 1 });
    await client.get('network', '/networks');
    expect(proxy.calls.filter((c) => c.path.startsWith('/v2.0/networks')).map((c) => c.status)).toEqual([429, 200]);
  });

  it('a 429 storm ends, after the capped number of tries, as a retryable error', async () => {
    proxy.inject({ method: 'GET', path: /^\/v2\.1\/flavors/, status: 429, retryAfter: '0', times: 100 });
    const err = await rejection(client.get('compute', '/flavors'));
    expect(err).toMatchObject({ code: 'retryable', status: 429 });
    expect(err.terminal).toBe(false);
    expect(tries(/^\/v2\.1\/flavors/)).toBe(4);
  });

  it('a Retry-After beyond the longest wait is not waited for: retryable at once', async () => {
    const patient = new OpenStackClient(client.cloud, { maxRetryAfterMs: 5_000 });
    proxy.inject({ method: 'GET', path: /^\/v2\.1\/flavors/, status: 429, retryAfter: '3600', times: 1 });
    await expect(patient.get('compute', '/flavors')).rejects.toMatchObject({ code: 'retryable', status: 429 });
    expect(tries(/^\/v2\.1\/flavors/)).toBe(1);
  });

  it('a token that expires mid-job (401) is replaced once; a second 401 is the answer', async () => {
    await client.get('compute', '/flavors');
    const before = client.authentications;
    proxy.inject({ method: 'GET', path: /^\/v2\.1\/flavors/, status: 401, times: 1 });
    await client.get('compute', '/flavors');
    expect(client.authentications).toBe(before + 1);
    proxy.inject({ method: 'GET', path: /^\/v2\.1\/flavors/, status: 401, times: 2 });
    await expect(client.get('compute', '/flavors')).rejects.toMatchObject({ status: 401 });
  });

  it('a create whose answer was lost (503 after Nova took it) is not sent again; the retried job finds the server', async () => {
    const { images } = await client.get<{ images: Array<{ id: string }> }>('image', '/images', { query: { name: 'debian-12' } });
    const compute = new OpenStackComputeDriver(client, { bootTimeoutMs: 120_000, network: 'stratus-net' });
    const spec = { id: randomUUID(), imageId: images[0].id, address: '', port: 1, userData: null, flavor: { vcpus: 1, ramMb: 512 } };
    proxy.inject({ method: 'POST', path: /^\/v2\.1\/servers$/, status: 503, times: 1, afterForward: true });
    const err = await rejection(compute.create(spec));
    expect(err).toMatchObject({ code: 'retryable', status: 503 });
    // The job's next run.
    await waitFor('the server to boot', async () => (await compute.create(spec)).ready, { timeoutMs: 120_000, intervalMs: 500 });
    expect(proxy.calls.filter((c) => c.method === 'POST' && c.path === '/v2.1/servers')).toHaveLength(1);
    // Counted in Nova itself.
    const servers = await serversOf(testbedClient(), spec.id);
    expect(servers.map((s) => s.name)).toEqual([MARK.name(spec.id)]);
    await compute.delete(spec.id);
  });
});
