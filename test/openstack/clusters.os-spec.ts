import { MARK, OpenStackLoadBalancerDriver, serversOf } from '@stratus/providers';
import { failTestbedLoadBalancer, useOpenStackSuite, waitFor } from '@stratus/testing';

/**
 * Autoscaling clusters on PROVIDER=openstack, end to end: the compiled api
 * and worker (`npm run build` first) with the testbed's settings. Members
 * are Nova servers in one soft-anti-affinity server group, built one at a
 * time; the balancer is an Octavia load balancer on the cluster's own
 * address (a Neutron port), its members the servers' addresses, and the
 * cluster's name a Host rule on the proxy hosts' HTTP listener.
 *
 * The testbed has no data path (nothing answers on its tenant addresses)
 * and its Octavia runs no health checks, so OPENSTACK_DATA_PATH=false
 * counts a member Octavia took as up (a simulation, named in the setting).
 * The clusters end-to-end suite (test/clusters.e2e-spec.ts) runs on the
 * testbed too (project e2e-openstack): build, heal, updates, from-instance,
 * a failed boot, delete. What is here is the openstack provider's own: the
 * server group, the Nova server deleted behind the cluster's back, and the
 * Octavia load balancer put in ERROR.
 */
describe('clusters on the openstack provider (testbed)', () => {
  const s = useOpenStackSuite();
  const { overrides, cloud, keypair } = s;
  const octavia = new OpenStackLoadBalancerDriver(cloud);
  let fields: { image: string; flavor: string; backend_network_id: string; key_name: string; port: number };

  beforeAll(async () => {
    const [image] = await s.db.query(`SELECT id FROM images WHERE name = 'debian-12'`);
    const [network] = await s.db.query(`SELECT id FROM networks WHERE name = 'stratus-net'`);
    fields = { image: image.id, flavor: 'm1.small', backend_network_id: network.id, key_name: keypair, port: 8080 };
  });

  /** The cluster's Nova server group (its placement group, named after it by the compute driver), or null. */
  async function serverGroupOf(clusterId: string): Promise<{ id: string; policies?: string[]; policy?: string; members: string[] } | null> {
    const { server_groups } = await cloud.get<{ server_groups: Array<{ id: string; name: string; policies?: string[]; policy?: string; members: string[] }> }>(
      'compute',
      '/os-server-groups',
      { query: { limit: 1000 } },
    );
    return server_groups.find((g) => g.name === MARK.name(`group-${clusterId}`)) ?? null;
  }

  async function cluster(id: string): Promise<any> {
    return (await s.api.get(`/v1/clusters/${id}`)).body;
  }

  async function until(id: string, what: string, done: (c: any) => boolean, timeoutMs = 300_000): Promise<any> {
    return waitFor(
      what,
      async () => {
        const c = await cluster(id);
        if (c.status === 'CREATE_FAILED' && !done(c)) throw new Error(`build failed: ${c.status_reason}`);
        return done(c) ? c : undefined;
      },
      { timeoutMs, intervalMs: 500 },
    );
  }

  /** What Octavia holds for the cluster's balancer: its address and port, and its backends' addresses and states. */
  async function balancer(id: string): Promise<{ address: string; port: number; backends: string[] } | null> {
    const seen = await octavia.observe(`cluster-${id}`);
    if (!seen?.spec) return null;
    return { address: seen.spec.address, port: seen.spec.port, backends: seen.backends.map((b) => `${b.address}:${b.port} ${b.state}`).sort() };
  }

  describe('a cluster of two', () => {
    let id: string;
    let built: any;

    it('builds its members one at a time as Nova servers in one server group, behind an Octavia load balancer on its own address', async () => {
      const created = await s.api.post('/v1/clusters', { name: 'os-web', ...fields, min_size: 2 });
      expect({ status: created.status, body: created.body }).toMatchObject({ status: 201, body: { status: 'CREATE_IN_PROGRESS', desired_size: 2 } });
      id = created.body.id;
      const summaries: string[] = [];
      built = await until(id, 'the cluster to be built', (c) => {
        if (summaries[summaries.length - 1] !== c.progress.summary) summaries.push(c.progress.summary);
        return c.status === 'CREATE_COMPLETE';
      });
      expect(summaries.filter((p) => p !== '0/2')).toEqual(['1/2', '2/2']);
      const members = [...built.members].sort((a: any, b: any) => a.created_at.localeCompare(b.created_at));
      expect(Date.parse(members[1].created_at)).toBeGreaterThanOrEqual(Date.parse(members[0].joined_at));

      // Each member is one Nova server, in the cluster's server group.
      const group = await serverGroupOf(id);
      expect(group).not.toBeNull();
      expect(group!.policies ?? [group!.policy]).toEqual(['soft-anti-affinity']);
      for (const m of built.members) {
        const servers = await serversOf(cloud, m.instance_id);
        expect(servers).toHaveLength(1);
        expect(group!.members).toContain(servers[0].id);
      }

      // The balancer: on the cluster's address and port, every member's address a backend taking connections.
      expect(await balancer(id)).toEqual({
        address: built.load_balancer.address,
        port: 8080,
        backends: built.members.map((m: any) => `${m.address}:8080 active`).sort(),
      });
      // The cluster's name, on the proxy hosts' HTTP listener, forwards to that address.
      const byName = await octavia.observe(`clusterdns-${id}`);
      expect(byName?.spec).toMatchObject({ address: overrides.EDGE_HTTP_HOST, protocol: 'http', hosts: [built.dnsName] });
      expect(byName?.backends.map((b) => `${b.address}:${b.port}`)).toEqual([`${built.load_balancer.address}:8080`]);
    }, 400_000);

    it('replaces a member whose Nova server is deleted behind its back', async () => {
      const victim = built.members[0];
      const [server] = await serversOf(cloud, victim.instance_id);
      await cloud.delete('compute', `/servers/${server.id}`);
      built = await until(
        id,
        'two members again, the lost one replaced',
        (c) => c.members.length === 2 && c.members.every((m: any) => m.health === 'up') && !c.members.some((m: any) => m.instance_id === victim.instance_id),
      );
      expect(built.events.map((e: any) => e.kind)).toContain('heal');
      await waitFor(
        'the balancer to follow',
        async () =>
          (await balancer(id))?.backends.join() ===
          built.members
            .map((m: any) => `${m.address}:8080 active`)
            .sort()
            .join(),
        {
          timeoutMs: 120_000,
          intervalMs: 1_000,
        },
      );
    }, 400_000);

    it('puts its balancer back when Octavia put its load balancer in ERROR: a new one, every member a backend, its name routed again', async () => {
      const address = built.load_balancer.address;
      const lbAt = async () => {
        const { loadbalancers } = await cloud.get<{ loadbalancers: Array<{ id: string; provisioning_status: string }> }>('load-balancer', '/lbaas/loadbalancers', {
          query: { name: MARK.addressName(address) },
        });
        return loadbalancers.filter((lb) => !['DELETED', 'PENDING_DELETE'].includes(lb.provisioning_status));
      };
      const [failed] = await lbAt();
      failTestbedLoadBalancer(failed.id);
      // The reconciler sees the fault and heals; the converge's ensure replaces the load balancer and adds the members back.
      await waitFor(
        'a new load balancer with every member',
        async () => {
          const lbs = await lbAt();
          const backends = (await balancer(id))?.backends.join();
          return (
            lbs.length === 1 &&
            lbs[0].id !== failed.id &&
            lbs[0].provisioning_status === 'ACTIVE' &&
            backends ===
              built.members
                .map((m: any) => `${m.address}:8080 active`)
                .sort()
                .join()
          );
        },
        { timeoutMs: 300_000, intervalMs: 1_000 },
      );
      const healed = await until(id, 'the heal to end', (c) => c.status === 'UPDATE_COMPLETE');
      expect(healed.events).toContainEqual(
        expect.objectContaining({ kind: 'heal', reason: expect.stringMatching(new RegExp(`its balancer does not serve it: the Octavia load balancer ${failed.id} is in ERROR`)) }),
      );
      expect((await octavia.observe(`clusterdns-${id}`))?.backends.map((b) => `${b.address}:${b.port}`)).toEqual([`${address}:8080`]);
    }, 400_000);

    it('deletes the cluster: its servers, load balancer and server group go', async () => {
      expect((await s.api.delete(`/v1/clusters/${id}`)).status).toBe(204);
      await waitFor('the cluster to be gone', async () => (await s.api.get(`/v1/clusters/${id}`)).status === 404, { timeoutMs: 300_000, intervalMs: 1_000 });
      for (const m of built.members) expect(await serversOf(cloud, m.instance_id)).toEqual([]);
      await waitFor('Octavia to forget the balancer', async () => (await octavia.observe(`cluster-${id}`)) === null && (await octavia.observe(`clusterdns-${id}`)) === null, {
        timeoutMs: 120_000,
        intervalMs: 1_000,
      });
      expect(await serverGroupOf(id)).toBeNull();
    }, 400_000);
  });
});
