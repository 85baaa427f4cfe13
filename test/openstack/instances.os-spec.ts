import { MARK, serversOf } from '@stratus/providers';
import { useOpenStackSuite, waitFor, waitForInstance } from '@stratus/testing';

/**
 * The control plane on PROVIDER=openstack, end to end: the compiled api
 * and worker (`npm run build` first) with the testbed's clouds.yaml, an
 * installation of its own (database, queues, data folder of this slot and
 * `-openstack`). An instance goes through the same API and job pipeline
 * as on the local provider, and Nova counts one server for it. No check
 * needs a data path: the address is Neutron's, and nothing connects to it.
 */
describe('instances on the openstack provider (testbed)', () => {
  const s = useOpenStackSuite({
    securityGroup: {
      description: 'e2e: an instance booted with it',
      rules: [{ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 8080, port_range_max: 8080, remote_ip_prefix: '192.0.2.0/24' }],
    },
  });
  const { cloud, keypair } = s;

  it('creates an instance through the API that Nova boots once, on the port of its address with its security group, and deletes it', async () => {
    const { api, db } = s;
    const group = s.securityGroup!;
    const [image] = await db.query(`SELECT id FROM images WHERE name = 'debian-12'`);
    const [flavor] = await db.query(`SELECT id FROM flavors WHERE name = 'm1.tiny'`);
    const [network] = await db.query(`SELECT id FROM networks WHERE name = 'stratus-net'`);
    // The group as /v1/security_groups lists it: Neutron's IPv4 rules, its default egress one included.
    const groups = await api.get('/v1/security_groups');
    expect((groups.body.items as Array<{ name: string }>).find((g) => g.name === group.name)).toEqual({
      id: group.id,
      name: group.name,
      description: 'e2e: an instance booted with it',
      rules: expect.arrayContaining([
        { id: expect.any(String), direction: 'egress', protocol: 'all' },
        { id: expect.any(String), direction: 'ingress', protocol: 'tcp', port: 8080, cidr: '192.0.2.0/24' },
      ]),
    });
    expect(groups.body.items.find((g: { name: string }) => g.name === group.name).rules).toHaveLength(2);
    const created = await api.post('/v1/instances', {
      name: 'os-1',
      image_id: image.id,
      flavor_id: flavor.id,
      network_id: network.id,
      keypair_name: keypair,
      security_group_names: [group.name],
      user_data: '#!/bin/sh\necho booted\n',
    });
    expect(created.status).toBe(202);
    const id = created.body.id;
    const active = await waitForInstance(api, id, ['ACTIVE', 'ERROR'], 240_000);
    expect(active).toMatchObject({ status: 'ACTIVE', metadata: { privateIp: expect.stringMatching(/^10\.0\.0\./) } });
    expect(active.metadata.resourceLimits).toBe('Nova flavor m1.tiny: 1 vCPU, 512 MiB');

    const servers = await serversOf(cloud, id);
    expect(servers.map((server) => server.name)).toEqual([MARK.name(id)]);
    expect((servers[0] as unknown as { key_name: string }).key_name).toBe(keypair);
    expect(
      Object.values(servers[0].addresses ?? {})
        .flat()
        .map((a) => a.addr),
    ).toEqual([active.metadata.privateIp]);
    // The group is Neutron's, on the instance's port (Nova applies a server's groups only to ports it makes).
    const { ports } = await cloud.get<{ ports: Array<{ fixed_ips: Array<{ ip_address: string }>; security_groups: string[] }> }>('network', '/ports', {
      query: { name: MARK.name(id) },
    });
    expect(ports.map((p) => [p.fixed_ips.map((ip) => ip.ip_address), p.security_groups])).toEqual([[[active.metadata.privateIp], [group.id]]]);

    expect((await api.delete(`/v1/instances/${id}`)).status).toBeLessThan(300);
    await waitFor('the instance to be gone', async () => ((await api.get('/v1/instances')).body as Array<{ id: string }>).every((i) => i.id !== id), {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    await waitFor(
      'Nova to forget the server and Neutron the port',
      async () => {
        const { ports } = await cloud.get<{ ports: unknown[] }>('network', '/ports', { query: { name: MARK.name(id) } });
        return (await serversOf(cloud, id)).length === 0 && ports.length === 0;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
  });
});
