import { engineVerifier, HA_MEMBERS, memberKeyOf } from '@stratus/core';
import { DatabaseServerSpec, DriverError, haListenerId, MARK, NovaServer, serversOf } from '@stratus/providers';
import { ensureUntilReady, rejection, runningServerCopies, testbedClient, testbedNetworkId, waitFor } from '@stratus/testing';
import { randomInt, randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { VERIFIER_METADATA_KEY } from './openstack-database.cloud-init';
import { haMemberSecrets, OpenStackDatabaseDriver, OpenStackDatabaseOptions } from './openstack-database.driver';
import { OpenStackLoadBalancerDriver } from './openstack-load-balancer.driver';
import { memberGroupName } from './openstack-database.member-group';
import { OpenStackNetworkDriver } from './openstack-network.driver';
import { keeper } from './openstack-resources';

/**
 * Managed database servers on the testbed's Nova. Its fake virt driver
 * boots nothing, so no engine ever answers: readiness is the
 * OPENSTACK_DATA_PATH=false simulation (ACTIVE with the verifier in the
 * metadata), and what the servers would run is read back from Nova (the
 * user_data it stores), not from the servers.
 */
const client = testbedClient();
const admin = testbedClient('stratus-testbed-admin');
const network = new OpenStackNetworkDriver(client);
const options: OpenStackDatabaseOptions = { image: 'debian-12', flavor: '', dataPath: false, bootTimeoutMs: 120_000 };
const driver = new OpenStackDatabaseDriver(client, options);
const balancer = new OpenStackLoadBalancerDriver(client, { dataPath: false });
const haDriver = new OpenStackDatabaseDriver(client, { ...options, haKey: () => 'os-spec-ha-key' }, balancer);
/** The ha databases made: their listener and server group go with haDriver.delete. */
const haKeys: string[] = [];
const PASSWORD = 'never-in-user-data-7f3a';
const made: string[] = [];
let networkId: string;

beforeAll(async () => {
  networkId = await testbedNetworkId(client);
});

afterAll(async () => {
  for (const key of haKeys) await haDriver.delete(key);
  for (const key of made) {
    for (const s of await serversOf(client, key)) await client.delete('compute', `/servers/${s.id}`);
    await waitFor('the servers to go', async () => (await serversOf(client, key)).length === 0, { timeoutMs: 60_000, intervalMs: 500 });
    await network.releaseAddress(key);
  }
});

/** A spec on an address of its own, as the worker makes it: the network driver's port for the key first. */
async function spec(overrides: Partial<DatabaseServerSpec> = {}, password = PASSWORD): Promise<DatabaseServerSpec> {
  const engine = overrides.engine ?? 'postgres';
  const key = overrides.key ?? `${engine}-${randomUUID()}`;
  made.push(key);
  const address = await network.ensureAddress({ id: key, networkId, cidr: '10.0.0.0/24', kind: 'database' });
  return {
    key,
    engine,
    version: engine === 'postgres' ? '16' : engine === 'redis' ? '7' : null,
    address,
    port: engine === 'postgres' ? 5432 : engine === 'redis' ? 6379 : 8123,
    // As the API makes them: a cache has neither.
    dbName: engine === 'redis' ? null : 'orders',
    dbUser: engine === 'redis' ? null : 'app',
    passwordVerifier: await engineVerifier(engine, password),
    superuser: false,
    extensions: [],
    ha: false,
    memberAddresses: [],
    ...overrides,
  };
}

/** Servers of the key that run or boot, counted in Nova itself. */
const runningCopies = (key: string) => runningServerCopies(client, key);

/** The user_data Nova keeps for the server (an admin's attribute from microversion 2.3 on), decoded. */
async function storedUserData(serverId: string): Promise<string> {
  const { server } = await admin.get<{ server: Record<string, string> }>('compute', `/servers/${serverId}`);
  return Buffer.from(server['OS-EXT-SRV-ATTR:user_data'], 'base64').toString('utf8');
}

const ready = (s: DatabaseServerSpec, d = driver) => ensureUntilReady(d, s, { timeoutMs: 120_000, intervalMs: 500 });

describe('openstack managed databases (testbed, OPENSTACK_DATA_PATH=false)', () => {
  it("boots one server on the key's port however often, and however racing, the job runs; delete leaves nothing", async () => {
    const s = await spec();
    expect(await driver.observe(s.key)).toBeNull();
    // Two runs of the job at once: each looks, finds nothing, and would boot.
    const [a, b] = await Promise.all([driver.ensureRunning(s), driver.ensureRunning(s)]);
    expect([a.running, a.ready, b.running, b.ready]).toEqual([true, false, true, false]);
    // One run claimed the port and booted; the other found the claim (or lost the compare-and-set) and booted nothing.
    expect(await serversOf(client, s.key)).toHaveLength(1);
    expect(await ready(s)).toMatchObject({ running: true, ready: true });
    expect(await driver.ensureRunning(s)).toMatchObject({ running: true, ready: true });
    expect(await runningCopies(s.key)).toBe(1);
    expect(await driver.observe(s.key)).toEqual({ running: true, ready: true });

    // The server holds its port (a copy booted on it would have unbound it when deleted) and lists its address.
    const [server] = await serversOf(client, s.key);
    expect(server.name).toBe(MARK.name(s.key));
    expect(await portHolders(s.key)).toEqual([server.id]);
    expect(addressesOf(server)).toContain(s.address);

    await driver.delete(s.key);
    await driver.delete(s.key);
    expect(await driver.observe(s.key)).toBeNull();
    expect(await serversOf(client, s.key)).toHaveLength(0);
  });

  it('the user_data Nova stores holds the verifier, never the password; a reset goes through the metadata', async () => {
    const s = await spec();
    await ready(s);
    const [server] = await serversOf(client, s.key);
    const userData = await storedUserData(server.id);
    expect(userData).toContain(s.passwordVerifier);
    expect(userData).not.toContain(PASSWORD);
    const config = parse(userData) as { write_files: Array<{ path: string; content: string }> };
    expect(config.write_files.find((f) => f.path === '/etc/stratus/verifier')?.content).toBe(`${s.passwordVerifier}\n`);
    expect(server.metadata?.[VERIFIER_METADATA_KEY]).toBe(s.passwordVerifier);

    const newPassword = 'also-never-stored-91c2';
    const reset = { ...s, passwordVerifier: await engineVerifier('postgres', newPassword) };
    expect(await ready(reset)).toMatchObject({ running: true, ready: true });
    const [after] = await serversOf(client, s.key);
    // The same server (its disk holds the data), the new verifier where its timer reads it.
    expect(after.id).toBe(server.id);
    expect(after.metadata?.[VERIFIER_METADATA_KEY]).toBe(reset.passwordVerifier);
    for (const text of [JSON.stringify(after.metadata), await storedUserData(after.id)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(newPassword);
    }
    await driver.delete(s.key);
  });

  it('Redis and ClickHouse servers carry their SHA-256 verifiers the same way', async () => {
    for (const engine of ['redis', 'clickhouse'] as const) {
      const s = await spec({ engine });
      await ready(s);
      const [server] = await serversOf(client, s.key);
      const userData = await storedUserData(server.id);
      expect(s.passwordVerifier).toMatch(/^[0-9a-f]{64}$/);
      expect(userData).toContain(s.passwordVerifier);
      expect(userData).not.toContain(PASSWORD);
      await driver.delete(s.key);
    }
  });

  it('a server Nova puts in ERROR is a terminal error with its fault, and goes', async () => {
    // More memory than the fake hypervisor has: the scheduler finds no host, and Nova records the fault.
    const { flavors } = await client.get<{ flavors: Array<{ name: string; ram: number }> }>('compute', '/flavors/detail');
    const huge = flavors.sort((x, y) => y.ram - x.ram)[0];
    const noHost = new OpenStackDatabaseDriver(client, { ...options, flavor: huge.name });
    const s = await spec();
    const err = await rejection(ready(s, noHost));
    expect(err).toBeInstanceOf(DriverError);
    expect(err.terminal).toBe(true);
    expect(err.message).toMatch(new RegExp(`^database server ${s.key} exited while starting: Nova put it in ERROR: No valid host was found`));
    expect(await driver.observe(s.key)).toBeNull();
    expect(await serversOf(client, s.key)).toHaveLength(0);
  });

  it('a server that served and then went to ERROR is a terminal error that keeps its disk, observed first as not running', async () => {
    const s = await spec();
    await ready(s);
    const [server] = await serversOf(client, s.key);
    await admin.post('compute', `/servers/${server.id}/action`, { 'os-resetState': { state: 'error' } });
    const seen = await waitFor('the server in ERROR', async () => {
      const o = await driver.observe(s.key);
      return o && !o.running && o;
    });
    expect(seen).toMatchObject({ running: false, ready: false, step: expect.stringMatching(/^Nova put the server in ERROR/) });
    const err = await rejection(driver.ensureRunning(s));
    expect(err).toMatchObject({ code: 'invalid', message: `database server ${s.key} failed: Nova put it in ERROR: no fault given` });
    // Its disk holds the data: it stays until the database is deleted.
    expect((await serversOf(client, s.key)).map((x) => x.id)).toEqual([server.id]);
    await driver.delete(s.key);
    expect(await serversOf(client, s.key)).toHaveLength(0);
  });

  it('with a data path expected, a server Nova calls ACTIVE is not ready until its engine answers', async () => {
    const strict = new OpenStackDatabaseDriver(client, { ...options, dataPath: true });
    const s = await spec({ engine: 'redis' });
    await ready(s);
    // The fake virt driver booted nothing on the address: no engine answers there.
    expect(await strict.ensureRunning(s)).toEqual({ running: true, ready: false, step: 'installing and configuring redis on the server (cloud-init)' });
    expect(await strict.observe(s.key)).toEqual({ running: true, ready: false });
    await driver.delete(s.key);
  });

  it('refuses what it cannot build (ha of ClickHouse, ha without a load balancer, Redis 6) before it makes anything', async () => {
    const members = { ha: true, memberAddresses: ['10.0.0.201', '10.0.0.202', '10.0.0.203'] };
    const clickhouse = await spec({ engine: 'clickhouse', ...members });
    expect(await rejection(haDriver.ensureRunning(clickhouse))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^high availability \(ha: true\) of clickhouse is not built on the openstack provider/),
    });
    const ha = await spec(members);
    expect(await rejection(driver.ensureRunning(ha))).toMatchObject({ code: 'invalid', message: expect.stringContaining('needs the load balancer') });
    const redis6 = await spec({ engine: 'redis', version: '6' });
    expect(await rejection(driver.ensureRunning(redis6))).toMatchObject({ code: 'invalid', message: expect.stringContaining('Redis 6') });
    expect(await haDriver.observe(clickhouse.key)).toBeNull();
    expect(await haDriver.observe(ha.key)).toBeNull();
    expect(await driver.observe(redis6.key)).toBeNull();
  });

  it('ha PostgreSQL: one server per member however racing the job runs, each on its member port with its own secrets derived the same on every run', async () => {
    const s = await haSpec();
    expect(await haDriver.observe(s.key)).toBeNull();
    await Promise.all([haDriver.ensureRunning(s), haDriver.ensureRunning(s), haDriver.ensureRunning(s)]);
    // One boot per member port, however many runs raced to it; a repeat boots nothing more.
    const memberServers = async () => (await Promise.all(s.memberAddresses.map((_, n) => serversOf(client, memberKeyOf(s.key, n))))).map((servers) => servers.map((m) => m.id));
    const booted = await memberServers();
    expect(booted.map((ids) => ids.length)).toEqual([1, 1, 1]);
    await haDriver.ensureRunning(s);
    expect(await memberServers()).toEqual(booted);
    await ready(s, haDriver);
    // Each member holds its port.
    for (const [n, ids] of booted.entries()) expect(await portHolders(memberKeyOf(s.key, n))).toEqual(ids);
    const observed = await haDriver.observe(s.key);
    expect(observed).toMatchObject({ running: true, ready: true, degraded: false });
    // Without a data path no Patroni can say which member leads: none is called the primary.
    expect(observed!.members).toEqual(s.memberAddresses.map((address) => ({ address, role: 'replica', health: 'up', lag: null })));
    const userData = await Promise.all(s.memberAddresses.map(async (_, n) => storedUserData((await serversOf(client, memberKeyOf(s.key, n)))[0].id)));
    const secrets = haMemberSecrets('os-spec-ha-key', s.key);
    userData.forEach((text, n) => {
      expect(text).not.toContain(PASSWORD);
      expect(text).toContain(s.passwordVerifier);
      const patroni = parse((parse(text) as { write_files: Array<{ path: string; content: string }> }).write_files.find((f) => f.path === '/etc/stratus/patroni.yml')!.content);
      expect(patroni).toMatchObject({ name: `member-${n}`, postgresql: { authentication: { replication: { password: secrets.replication } } } });
    });
    await haDriver.delete(s.key);
    expect(await haDriver.observe(s.key)).toBeNull();
    expect(await balancer.observe(haListenerId(s.key))).toBeNull();
  });

  it("ha PostgreSQL: members a racing run put in its own copy of the members' group are moved to the one kept, and the copy goes", async () => {
    const s = await haSpec();
    await haDriver.ensureRunning(s);
    const [kept] = await membersGroups(s.key);
    // What a racing run leaves: it made the group within the moment this one did, saw only its copy, and put a member there.
    const { security_group: copy } = await client.post<{ security_group: { id: string } }>('network', '/security-groups', {
      security_group: { name: memberGroupName(s.key), description: 'a racing copy' },
    });
    const [moved] = await memberPorts(s.key, 1);
    await client.put('network', `/ports/${moved.id}`, { port: { security_groups: [copy.id] } });
    const split = await membersGroups(s.key);
    // The one every run keeps (keepMemberGroup): the oldest, then the lowest id.
    const survivor = keeper(split, (g) => g.created_at).id;
    expect(split.map((g) => g.id).sort()).toEqual([kept.id, copy.id].sort());

    await haDriver.ensureRunning(s);
    for (let n = 0; n < HA_MEMBERS; n++) expect((await memberPorts(s.key, n)).map((p) => p.security_groups)).toEqual([[survivor]]);
    expect((await membersGroups(s.key)).map((g) => g.id)).toEqual([survivor]);
  });
});

/** The Neutron security groups named as the members' of the ha database. */
async function membersGroups(key: string): Promise<Array<{ id: string; created_at: string }>> {
  const { security_groups } = await client.get<{ security_groups: Array<{ id: string; name: string; created_at: string }> }>('network', '/security-groups', {
    query: { name: memberGroupName(key) },
  });
  return security_groups.filter((g) => g.name === memberGroupName(key));
}

/** The servers the key's port is bound to, as Neutron says. */
async function portHolders(key: string): Promise<string[]> {
  const { ports } = await client.get<{ ports: Array<{ device_id: string }> }>('network', '/ports', { query: { name: MARK.name(key) } });
  return ports.map((p) => p.device_id);
}

const addressesOf = (server: NovaServer) =>
  Object.values(server.addresses ?? {})
    .flat()
    .map((x) => x.addr);

/** The network driver's ports of member n. */
async function memberPorts(key: string, n: number): Promise<Array<{ id: string; security_groups: string[] }>> {
  const { ports } = await client.get<{ ports: Array<{ id: string; security_groups: string[] }> }>('network', '/ports', { query: { name: MARK.name(memberKeyOf(key, n)) } });
  return ports;
}

/** An ha PostgreSQL spec as the worker makes it: the database's port, then one per member. */
async function haSpec(): Promise<DatabaseServerSpec> {
  // A key of a row's shape: its members' Nova tags (`stratus-id:<key>-member-<n>`) must stay within 60 characters.
  const s = await spec({ ha: true, key: `postgres-9${randomInt(1e8)}` });
  const memberAddresses: string[] = [];
  for (let n = 0; n < HA_MEMBERS; n++) {
    made.push(memberKeyOf(s.key, n));
    memberAddresses.push(await network.ensureAddress({ id: memberKeyOf(s.key, n), networkId, cidr: '10.0.0.0/24', kind: 'database' }));
  }
  haKeys.push(s.key);
  return { ...s, memberAddresses };
}
