import { MARK, serversOf } from '@stratus/providers';
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
    const server = (await testbedDatabaseServer(key))!;
    expect(server.id).toBe(servers[0].id);
    for (const text of [JSON.stringify(server.metadata), server.userData]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(newPassword);
    }

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
});
