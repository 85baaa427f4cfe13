import { HA_MEMBERS, memberKeyOf } from '@stratus/core';
import { haListenerId, MARK, memberGroupName, OpenStackClient, serversOf, VERIFIER_METADATA_KEY } from '@stratus/providers';
import { testbedDatabaseServer, useOpenStackSuite, waitFor, waitForDatabase, waitForDatabaseGone } from '@stratus/testing';

/**
 * A managed database on PROVIDER=openstack, end to end: the compiled api
 * and worker (`npm run build` first) with the testbed's settings, whose
 * OPENSTACK_DATA_PATH=false takes readiness from Nova's ACTIVE (the fake
 * virt driver boots nothing, so no client can connect). What is checked is
 * what Nova holds: one server on the database's address, booted with a
 * user_data that carries the verifier and never the password the API
 * returned, a reset that reaches the server's metadata, and nothing left
 * after the delete.
 */
describe('managed databases on the openstack provider (testbed)', () => {
  const s = useOpenStackSuite();
  const { cloud, keypair } = s;

  it('creates a cache (Redis 7) whose server holds the SHA-256 of its password, never the password', async () => {
    const { api, db } = s;
    const [flavor] = await db.query(`SELECT id FROM flavors WHERE name = 'm1.small'`);
    const [network] = await db.query(`SELECT id FROM networks WHERE name = 'stratus-net'`);
    const created = await api.post('/v1/cache', { name: 'os-cache', flavor_id: flavor.id, network_id: network.id, keypair_name: keypair });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 202 });
    const password: string = created.body.password;
    const ready = await waitForDatabase(api, 'cache', created.body.id, ['ready', 'error'], { timeoutMs: 240_000, intervalMs: 500 });
    expect(ready).toMatchObject({ status: 'ready', port: 6379 });
    const key = `redis-${created.body.id}`;
    const [row] = await db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [created.body.id]);
    const { userData } = (await testbedDatabaseServer(key))!;
    expect(userData).toContain(row.password_verifier);
    expect(userData).not.toContain(password);
    expect((await api.delete(`/v1/cache/${created.body.id}`)).status).toBeLessThan(300);
    await waitForDatabaseGone(api, 'cache', created.body.id, 120_000);
    await waitFor('Nova to forget the server', async () => (await serversOf(cloud, key)).length === 0, { timeoutMs: 120_000, intervalMs: 1000 });
  });

  it('creates a PostgreSQL database on one Nova server, resets its password through the metadata, and deletes it', async () => {
    const { api, db } = s;
    const [flavor] = await db.query(`SELECT id FROM flavors WHERE name = 'm1.small'`);
    const [network] = await db.query(`SELECT id FROM networks WHERE name = 'stratus-net'`);
    const created = await api.post('/v1/databases', { name: 'os-pg', flavor_id: flavor.id, network_id: network.id, keypair_name: keypair, version: '16' });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 202 });
    const password: string = created.body.db_password;
    expect(password).toEqual(expect.any(String));
    const ready = await waitForDatabase(api, 'databases', created.body.id, ['ready', 'error'], { timeoutMs: 240_000, intervalMs: 500 });
    expect(ready).toMatchObject({ status: 'ready', floating_ip: expect.stringMatching(/^10\.0\.0\./), port: 5432 });

    const key = `postgres-${created.body.id}`;
    const servers = await serversOf(cloud, key);
    expect(servers.map((server) => server.name)).toEqual([MARK.name(key)]);
    expect(
      Object.values(servers[0].addresses ?? {})
        .flat()
        .map((a) => a.addr),
    ).toEqual([ready.floating_ip]);
    const [row] = await db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [created.body.id]);
    const { userData } = (await testbedDatabaseServer(key))!;
    expect(userData).toContain(row.password_verifier);
    expect(userData).not.toContain(password);

    const reset = await api.post(`/v1/databases/${created.body.id}/reset-password`, {});
    expect(reset.status).toBeLessThan(300);
    const newPassword: string = reset.body.db_password;
    const [after] = await db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [created.body.id]);
    expect(after.password_verifier).not.toBe(row.password_verifier);
    await waitFor('the new verifier in the server metadata', async () => (await serversOf(cloud, key))[0]?.metadata?.stratus_verifier === after.password_verifier, {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    await expectSameServerWithout(key, servers[0].id, [password, newPassword]);

    expect((await api.delete(`/v1/databases/${created.body.id}`)).status).toBeLessThan(300);
    await waitForDatabaseGone(api, 'databases', created.body.id, 120_000);
    await waitFor(
      'Nova to forget the server and Neutron the port',
      async () => {
        const { ports } = await cloud.get<{ ports: unknown[] }>('network', '/ports', { query: { name: MARK.name(key) } });
        return (await serversOf(cloud, key)).length === 0 && ports.length === 0;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
  });

  it('creates an ha PostgreSQL on three Nova servers in one server group behind an Octavia listener, resets its password on all three, and deletes it all', async () => {
    const { api, db } = s;
    const [flavor] = await db.query(`SELECT id FROM flavors WHERE name = 'm1.small'`);
    const [network] = await db.query(`SELECT id FROM networks WHERE name = 'stratus-net'`);
    const created = await api.post('/v1/databases', { name: 'os-pg-ha', flavor_id: flavor.id, network_id: network.id, keypair_name: keypair, version: '16', ha: true });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 202 });
    const password: string = created.body.db_password;
    const ready = await waitForDatabase(api, 'databases', created.body.id, ['ready', 'error'], { timeoutMs: 360_000, intervalMs: 1000 });
    expect(ready).toMatchObject({ status: 'ready', floating_ip: expect.stringMatching(/^10\.0\.0\./), port: 5432 });

    const key = `postgres-${created.body.id}`;
    const [row] = await db.query(`SELECT password_verifier, member_addresses FROM managed_databases WHERE id = $1`, [created.body.id]);
    const memberAddresses: string[] = row.member_addresses;
    expect(memberAddresses).toHaveLength(HA_MEMBERS);
    expect(memberAddresses).not.toContain(ready.floating_ip);
    // No server on the database's own address: that is the listener's.
    expect(await serversOf(cloud, key)).toEqual([]);
    const members = await Promise.all(memberAddresses.map((_, n) => testbedDatabaseServer(memberKeyOf(key, n))));
    members.forEach((server, n) => {
      expect(server).not.toBeNull();
      expect(server!.name).toBe(MARK.name(memberKeyOf(key, n)));
      expect(
        Object.values(server!.addresses ?? {})
          .flat()
          .map((a) => a.addr),
      ).toEqual([memberAddresses[n]]);
      expect(server!.userData).toContain(row.password_verifier);
      expect(server!.userData).not.toContain(password);
      expect(server!.metadata?.[VERIFIER_METADATA_KEY]).toBe(row.password_verifier);
    });
    const groups = await serverGroupsOf(cloud, key);
    expect(groups).toHaveLength(1);
    expect(groups[0].policy).toBe('soft-anti-affinity');
    expect([...groups[0].members].sort()).toEqual(members.map((m) => m!.id).sort());

    // Each member's port is in the members' own group alone (not the project's default, every tenant's instances' group):
    // etcd's ports take connections from the group's members only; PostgreSQL and Patroni's REST API from the network.
    const [memberGroup] = (
      await cloud.get<{ security_groups: Array<{ id: string; security_group_rules: Array<Record<string, string | number | null>> }> }>('network', '/security-groups', {
        query: { name: memberGroupName(key) },
      })
    ).security_groups;
    expect(memberGroup).toBeDefined();
    for (const [n] of memberAddresses.entries()) {
      const { ports } = await cloud.get<{ ports: Array<{ security_groups: string[] }> }>('network', '/ports', { query: { name: MARK.name(memberKeyOf(key, n)) } });
      expect(ports.map((p) => p.security_groups)).toEqual([[memberGroup.id]]);
    }
    const ingress = memberGroup.security_group_rules
      .filter((r) => r.direction === 'ingress')
      .map((r) => `${r.port_range_min}-${r.port_range_max} from ${r.remote_group_id === memberGroup.id ? 'members' : r.remote_ip_prefix}`)
      .sort();
    expect(ingress).toEqual(['2379-2380 from members', '5432-5432 from 0.0.0.0/0', '8008-8008 from 0.0.0.0/0']);

    const listener = await octaviaListenerOf(cloud, haListenerId(key), ready.floating_ip, 5432);
    expect(listener.members.map((m) => [m.address, m.protocol_port, m.monitor_port]).sort()).toEqual(memberAddresses.map((a) => [a, 5432, 8008]).sort());
    expect(listener.monitor).toMatchObject({ type: 'HTTP', url_path: '/primary', http_method: 'GET' });

    const shown = (await api.get(`/v1/databases/${created.body.id}`)).body;
    expect(shown.members.map((m: { address: string }) => m.address)).toEqual(memberAddresses);

    const reset = await api.post(`/v1/databases/${created.body.id}/reset-password`, {});
    expect(reset.status).toBeLessThan(300);
    const newPassword: string = reset.body.db_password;
    const [after] = await db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [created.body.id]);
    expect(after.password_verifier).not.toBe(row.password_verifier);
    await waitFor(
      "the new verifier in every member's metadata",
      async () => {
        const now = await Promise.all(memberAddresses.map((_, n) => serversOf(cloud, memberKeyOf(key, n))));
        return now.every((servers) => servers.length === 1 && servers[0].metadata?.[VERIFIER_METADATA_KEY] === after.password_verifier);
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    for (const [n] of memberAddresses.entries()) await expectSameServerWithout(memberKeyOf(key, n), members[n]!.id, [password, newPassword]);

    expect((await api.delete(`/v1/databases/${created.body.id}`)).status).toBeLessThan(300);
    await waitForDatabaseGone(api, 'databases', created.body.id, 180_000);
    await waitFor(
      'Nova, Neutron and Octavia to hold nothing of it',
      async () => {
        const servers = await Promise.all([key, ...memberAddresses.map((_, n) => memberKeyOf(key, n))].map((k) => serversOf(cloud, k)));
        const { pools } = await cloud.get<{ pools: unknown[] }>('load-balancer', '/lbaas/pools', { query: { name: MARK.name(haListenerId(key)) } });
        const { ports } = await cloud.get<{ ports: Array<{ name: string }> }>('network', '/ports');
        return (
          servers.every((found) => found.length === 0) &&
          pools.length === 0 &&
          (await serverGroupsOf(cloud, key)).length === 0 &&
          (await cloud.get<{ security_groups: unknown[] }>('network', '/security-groups', { query: { name: memberGroupName(key) } })).security_groups.length === 0 &&
          !ports.some((p) => p.name === MARK.name(key) || p.name.startsWith(`${MARK.name(key)}-member-`))
        );
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
  });
});

/** The server of `key` is still `id` (a reset rebuilt nothing), and neither its metadata nor its user_data holds any of `passwords`. */
async function expectSameServerWithout(key: string, id: string, passwords: string[]): Promise<void> {
  const server = (await testbedDatabaseServer(key))!;
  expect(server.id).toBe(id);
  for (const text of [JSON.stringify(server.metadata), server.userData]) for (const password of passwords) expect(text).not.toContain(password);
}

/** The Nova server groups of an ha database's members. */
async function serverGroupsOf(cloud: OpenStackClient, key: string): Promise<Array<{ id: string; policy: string; members: string[] }>> {
  const { server_groups } = await cloud.get<{ server_groups: Array<{ id: string; name: string; policy: string; members: string[] }> }>('compute', '/os-server-groups', {
    query: { limit: 1000 },
  });
  return server_groups.filter((g) => g.name === MARK.name(`group-${key}`));
}

/** What Octavia holds for a listener id: its pool's members and health monitor, on the load balancer of `address`, on `port`. */
async function octaviaListenerOf(
  cloud: OpenStackClient,
  id: string,
  address: string,
  port: number,
): Promise<{ members: Array<{ address: string; protocol_port: number; monitor_port: number | null }>; monitor: Record<string, unknown> }> {
  const { loadbalancers } = await cloud.get<{ loadbalancers: Array<{ id: string; vip_address: string }> }>('load-balancer', '/lbaas/loadbalancers', {
    query: { vip_address: address },
  });
  expect(loadbalancers).toHaveLength(1);
  const { listeners } = await cloud.get<{ listeners: Array<{ protocol_port: number; default_pool_id: string | null }> }>('load-balancer', '/lbaas/listeners', {
    query: { loadbalancer_id: loadbalancers[0].id },
  });
  const listener = listeners.find((l) => l.protocol_port === port);
  const { pool } = await cloud.get<{ pool: { id: string; name: string; healthmonitor_id: string } }>('load-balancer', `/lbaas/pools/${listener!.default_pool_id}`);
  expect(pool.name).toBe(MARK.name(id));
  const { members } = await cloud.get<{ members: Array<{ address: string; protocol_port: number; monitor_port: number | null }> }>(
    'load-balancer',
    `/lbaas/pools/${pool.id}/members`,
  );
  const { healthmonitor } = await cloud.get<{ healthmonitor: Record<string, unknown> }>('load-balancer', `/lbaas/healthmonitors/${pool.healthmonitor_id}`);
  return { members, monitor: healthmonitor };
}
