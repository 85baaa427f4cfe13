import {
  allHealthy,
  answeredBy,
  catalogFixtures,
  DEMO_CLUSTER,
  DEMO_INSTANCE,
  instanceBacked,
  itReal,
  providerListener,
  providerListeners,
  providerUnderTest,
  realResources,
  saveBareInstance,
  useSuite,
  waitFor,
  waitForCluster,
  uploadTestbedSnapshot,
  waitForInstance,
  whenOpenStack,
  whenReal,
} from '@stratus/testing';
import { once } from 'node:events';
import { connect, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';

/**
 * Clusters, on the local provider (project e2e: real member processes of the
 * demo web app behind the edge's HAProxy) and on the openstack one (project
 * e2e-openstack: Nova servers behind an Octavia load balancer on the
 * testbed). Built one at a time, healed, updated member by member, adopted
 * from an instance, deleted. What needs a data path (requests through the
 * balancer, a member's process killed, CPU load) runs on the local provider
 * only (itReal, whenReal): nothing may connect to the testbed's tenant
 * addresses, and its Octavia runs no health checks (OPENSTACK_DATA_PATH=false
 * counts a member Octavia took as up, a simulation named in the setting).
 * There, what the provider holds is checked instead: the balancer's backends
 * as Octavia keeps them, a server behind each member.
 */
describe(`clusters on the ${providerUnderTest()} provider`, () => {
  // On the local provider the edge is the balancer: its HAProxy checks the members and serves the cluster's address and dnsName.
  // Autoscaling looks every second over a 6 s window with a 3 s cooldown, so a scaling test takes a minute, not ten
  // (a member counts once its samples span 80 % of the window: 4.8 s, reached by readings 1 s apart).
  const s = useSuite({ CLUSTER_AUTOSCALE_INTERVAL_MS: '1000', CLUSTER_SCALE_WINDOW_MS: '6000', CLUSTER_SCALE_COOLDOWN_MS: '3000' }, ['api', 'worker', 'edge']);
  // The provider's images, flavors, network and keypair: the same suite on every provider.
  const fx = catalogFixtures();
  const subnet = `${fx.network}-subnet`;
  // A member that cannot boot, in a cluster's field names (image and flavor, where an instance says image_id and flavor_id).
  const failingMember = fx.failedBoot && {
    fields: Object.fromEntries(Object.entries(fx.failedBoot.fields).map(([field, value]) => [field.replace(/_id$/, ''), value])),
    reasons: fx.failedBoot.reasons,
  };
  let edgePort: number;

  beforeAll(() => {
    edgePort = Number(s.stack.env.EDGE_HTTP_PORT);
  });

  /** A GET / through the edge's HTTP listener by the cluster's dnsName. */
  async function viaDnsName(host: string): Promise<{ status: number; body: any }> {
    const res = await request(`http://127.0.0.1:${edgePort}/`, { headers: { host } });
    const text = await res.body.text();
    return { status: res.statusCode, body: res.statusCode === 200 ? JSON.parse(text) : text };
  }

  /** An upgrade (WebSocket-like) tunnel through the balancer; the demo app says which member holds it and echoes on it. */
  async function openTunnel(address: string, port: number): Promise<{ socket: Socket; instance: string }> {
    const socket = connect(port, address);
    await once(socket, 'connect');
    socket.write(
      `GET /live HTTP/1.1\r\nHost: ${address}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    let got = '';
    while (!got.includes('\r\n\r\n')) got += (await once(socket, 'data'))[0].toString();
    const instance = /^x-instance: (\S+)$/im.exec(got)?.[1];
    if (!/^HTTP\/1\.1 101 /.test(got) || !instance) throw new Error(`no tunnel: ${got}`);
    return { socket, instance };
  }

  /** The tunnel still carries bytes both ways. */
  async function expectEcho(socket: Socket): Promise<void> {
    const word = `ping-${Math.random().toString(36).slice(2, 8)}`;
    socket.write(word);
    let echoed = '';
    while (echoed.length < word.length) echoed += (await once(socket, 'data'))[0].toString();
    expect(echoed).toBe(word);
  }

  async function deleteAndWaitGone(id: string): Promise<void> {
    expect((await s.api.delete(`/v1/clusters/${id}`)).status).toBe(204);
    // Generous: on the testbed a delete takes each member off the Octavia load balancer, then waits for Nova.
    await waitFor(`cluster ${id} to be gone`, async () => (await s.api.get(`/v1/clusters/${id}`)).status === 404, { timeoutMs: 300_000, intervalMs: 500 });
  }

  /**
   * The cluster's balancer as the provider holds it, each backend as `address:port state`,
   * sorted, or null while it holds none: what is checked where nothing may be connected to.
   */
  async function heldBackends(id: string): Promise<string[] | null> {
    const held = await providerListener(s.stack.env.DATA_DIR, `cluster-${id}`);
    return held ? held.backends.map((b) => `${b.address}:${b.port} ${b.state}`).sort() : null;
  }

  /** Every member of `cluster` a backend taking connections, as heldBackends says it. */
  function asBackends(cluster: any): string[] {
    return cluster.members.map((m: any) => `${m.address}:${cluster.port} active`).sort();
  }

  describe('a cluster of three', () => {
    let cluster: any;

    it('builds members one at a time (1/3, 2/3, 3/3), then CREATE_COMPLETE, and balances over all three', async () => {
      const created = await s.api.post('/v1/clusters', { name: 'web', ...DEMO_CLUSTER, min_size: 3 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        message: 'Stack creation started',
        id: expect.any(String),
        status: 'CREATE_IN_PROGRESS',
        min_size: 3,
        max_size: 5,
        desired_size: 3,
        port: 8080,
        scale_out_threshold: 0.7,
        scale_in_threshold: 0.2,
        backend_subnet_id: subnet,
        dnsName: expect.stringMatching(/^web-[0-9a-f]{8}\.localhost$/),
        progress: { healthy: 0, desired: 3, summary: '0/3' },
      });
      const id = created.body.id;

      // Watched closely: the summaries seen, and never two members not yet serving at once.
      const summaries: string[] = [];
      let mostPending = 0;
      cluster = await waitFor(
        'the cluster to be built',
        async () => {
          const res = await s.api.get(`/v1/clusters/${id}`);
          const c = res.body;
          if (summaries[summaries.length - 1] !== c.progress.summary) summaries.push(c.progress.summary);
          mostPending = Math.max(mostPending, c.members.filter((m: any) => m.health !== 'up').length);
          if (c.status === 'CREATE_FAILED') throw new Error(`build failed: ${c.status_reason}`);
          return c.status === 'CREATE_COMPLETE' ? c : undefined;
        },
        // Generous: the edge's HAProxy processes start slowly on a loaded machine.
        { timeoutMs: 240_000, intervalMs: 20 },
      );
      expect(summaries.filter((p) => p !== '0/3')).toEqual(['1/3', '2/3', '3/3']);
      expect(mostPending).toBeLessThanOrEqual(1);
      expect(allHealthy(cluster)).toBe(true);
      // Each member was created only once the one before had joined the balancer.
      const members = [...cluster.members].sort((a: any, b: any) => a.created_at.localeCompare(b.created_at));
      for (let i = 1; i < members.length; i++) expect(Date.parse(members[i].created_at)).toBeGreaterThanOrEqual(Date.parse(members[i - 1].joined_at));
      expect(cluster.placement).toMatchObject({ status: 'single-host', reason: expect.stringContaining('not the machine') });
      expect(cluster.events.map((e: any) => e.kind)).toContain('build');
      for (const m of cluster.members) expect(m).toMatchObject({ address: expect.any(String), host: expect.any(String), since: expect.any(String) });
      // Members are the project's instances.
      const instances = (await s.api.get('/v1/instances?limit=1000')).body as any[];
      for (const m of cluster.members) expect(instances.map((i) => i.id)).toContain(m.instance_id);

      // Listed too, with the same progress.
      const listed = (await s.api.get('/v1/clusters')).body as any[];
      expect(listed.find((c) => c.id === id)).toMatchObject({ status: 'CREATE_COMPLETE', progress: { summary: '3/3' } });

      // Each member backed by what the provider runs (a process, a Nova server).
      for (const m of cluster.members) expect(await instanceBacked(s.stack.env.DATA_DIR, m.instance_id)).toBe(true);

      const { address, port } = cluster.load_balancer;
      if (realResources()) {
        // Through the balancer, every member answers.
        const seen = new Set<string>();
        await waitFor('all three members to answer through the balancer', async () => {
          seen.add(await answeredBy(`http://${address}:${port}/`));
          return seen.size === 3;
        });
        expect([...seen].sort()).toEqual(cluster.members.map((m: any) => m.instance_id).sort());
        // And by its dnsName, through the edge's HTTP listener.
        const byName = await waitFor('the dnsName to route', async () => {
          const res = await viaDnsName(cluster.dnsName);
          return res.status === 200 ? res.body : undefined;
        });
        expect(cluster.members.map((m: any) => m.instance_id)).toContain(byName.instance);
      } else {
        // The balancer as the provider holds it: on the cluster's address and port, every member a backend taking connections.
        const held = await providerListener(s.stack.env.DATA_DIR, `cluster-${id}`);
        expect(held?.spec).toMatchObject({ address, port });
        expect(await heldBackends(id)).toEqual(asBackends(cluster));
        // Its dnsName, a Host rule on the proxy hosts' HTTP listener, forwards to that address.
        const byName = await providerListener(s.stack.env.DATA_DIR, `clusterdns-${id}`);
        expect(byName?.spec).toMatchObject({ protocol: 'http', hosts: [cluster.dnsName] });
        expect(byName?.backends.map((b) => `${b.address}:${b.port}`)).toEqual([`${address}:${port}`]);
      }
    }, 400_000);

    itReal(
      'replaces a SIGKILLed member while a client loops through the balancer without one failed request',
      async () => {
        const url = `http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`;
        const victim = cluster.members[1];
        const pid = ((await (await fetch(`http://${victim.address}:${DEMO_CLUSTER.port}/`)).json()) as any).pid;

        let stop = false;
        const results = { ok: 0, failed: [] as string[] };
        const client = (async () => {
          while (!stop) {
            try {
              const res = await fetch(url);
              await res.arrayBuffer();
              if (res.status === 200) results.ok++;
              else results.failed.push(`status ${res.status}`);
            } catch (err) {
              results.failed.push(String(err));
            }
          }
        })();
        try {
          await waitFor('the client to be served', () => results.ok > 20);
          process.kill(-pid, 'SIGKILL');
          const killedAt = Date.now();
          const healed = await waitFor(
            'three healthy members again, the killed one replaced',
            async () => {
              const c = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
              return c.status === 'UPDATE_COMPLETE' && allHealthy(c) && !c.members.some((m: any) => m.instance_id === victim.instance_id) ? c : undefined;
            },
            { timeoutMs: 150_000, intervalMs: 50 },
          );
          const healedInMs = Date.now() - killedAt;
          // Served by the replacement too, while the loop goes on.
          const fresh = healed.members.find((m: any) => !cluster.members.some((o: any) => o.instance_id === m.instance_id));
          await waitFor('the replacement to answer through the balancer', async () => (await answeredBy(url)) === fresh.instance_id);
          expect(healed.events.filter((e: any) => e.kind === 'heal').map((e: any) => e.reason)).toContainEqual(
            expect.stringContaining(`member ${victim.instance_id}: its process exited`),
          );
          expect(healedInMs).toBeGreaterThan(0);
          cluster = healed;
        } finally {
          stop = true;
          await client;
        }
        expect(results.failed).toEqual([]);
        expect(results.ok).toBeGreaterThan(100);
      },
      240_000,
    );

    it('replaces a member whose instance is deleted behind its back', async () => {
      const victim = cluster.members[0];
      expect((await s.api.delete(`/v1/instances/${victim.instance_id}`)).status).toBe(204);
      const healed = await waitFor(
        'three healthy members again, the deleted one replaced',
        async () => {
          const c = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
          return c.status === 'UPDATE_COMPLETE' && allHealthy(c) && !c.members.some((m: any) => m.instance_id === victim.instance_id) ? c : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 200 },
      );
      // Seen while its row was DELETING (named), or once it was gone with its link (counted missing).
      const heals = healed.events.filter((e: any) => e.kind === 'heal').map((e: any) => e.reason);
      expect(heals.some((r: string) => r.includes(`member ${victim.instance_id}: its instance was deleted`) || r.includes('missing (instance deleted)'))).toBe(true);
      expect(await instanceBacked(s.stack.env.DATA_DIR, victim.instance_id)).toBe(false);
      // Where nothing answers, the balancer is seen to follow: the replacement in, the deleted one out.
      if (!realResources()) {
        await waitFor('the balancer to follow', async () => (await heldBackends(cluster.id))?.join() === asBackends(healed).join(), { timeoutMs: 180_000, intervalMs: 1_000 });
      }
      cluster = healed;
    }, 400_000);

    it('deletes the cluster: members and balancer go, and the address stops answering', async () => {
      const url = `http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`;
      await deleteAndWaitGone(cluster.id);
      for (const m of cluster.members) {
        expect((await s.api.get(`/v1/instances/${m.instance_id}`)).status).toBe(404);
        expect(await instanceBacked(s.stack.env.DATA_DIR, m.instance_id)).toBe(false);
      }
      if (realResources()) {
        await waitFor('the balancer to stop answering', async () =>
          fetch(url).then(
            () => false,
            () => true,
          ),
        );
      } else {
        const gone = async (id: string) => (await providerListener(s.stack.env.DATA_DIR, id)) === null;
        await waitFor('the provider to hold no balancer for it', async () => (await gone(`cluster-${cluster.id}`)) && (await gone(`clusterdns-${cluster.id}`)), {
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
      }
      expect((await s.api.get('/v1/clusters')).body.some((c: any) => c.id === cluster.id)).toBe(false);
    }, 400_000);
  });

  // A port nobody binds is seen by health checks, which only the local provider's balancer runs here.
  itReal('keeps a member that never binds its port out of the balancer, reports it unhealthy, and does not fail', async () => {
    // The plain image boots (runs user_data) and idles: nothing ever listens on the port.
    const created = await s.api.post('/v1/clusters', { name: 'silent', ...DEMO_CLUSTER, image: fx.plainImage, user_data: 'sleep 1\n' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const member = await waitFor(
      'the member to run and fail its checks',
      async () => {
        const c = (await s.api.get(`/v1/clusters/${id}`)).body;
        const m = c.members[0];
        return m?.status === 'ACTIVE' && m.health === 'down' ? m : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Many checks later it still has not joined, and nothing failed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const c = (await s.api.get(`/v1/clusters/${id}`)).body;
    expect(c).toMatchObject({ status: 'CREATE_IN_PROGRESS', status_reason: null, progress: { healthy: 0, desired: 1 } });
    expect(c.progress.step).toContain('waiting for port 8080');
    expect(c.members).toEqual([expect.objectContaining({ instance_id: member.instance_id, status: 'ACTIVE', health: 'down', joined_at: null })]);
    const res = await fetch(`http://${c.load_balancer.address}:${c.load_balancer.port}/`);
    expect(res.status).toBe(503);
    await deleteAndWaitGone(id);
  });

  // A boot that fails as the provider's do: user_data that exits (local), a flavor Nova cannot place (testbed).
  (failingMember ? it : it.skip)(
    'ends CREATE_FAILED with the reason when a member cannot boot, and leaves no member running',
    async () => {
      const created = await s.api.post('/v1/clusters', { name: 'broken', ...DEMO_CLUSTER, min_size: 2, ...failingMember!.fields });
      const failed = await waitForCluster(s.api, created.body.id, ['CREATE_FAILED', 'CREATE_COMPLETE'], 180_000);
      expect(failed.status).toBe('CREATE_FAILED');
      for (const reason of failingMember!.reasons) expect(failed.status_reason).toContain(reason);
      await waitFor('its members to be gone', async () => (await s.api.get(`/v1/clusters/${created.body.id}`)).body.members.length === 0, { timeoutMs: 180_000, intervalMs: 500 });
      for (const m of failed.members) expect(await instanceBacked(s.stack.env.DATA_DIR, m.instance_id)).toBe(false);
      await deleteAndWaitGone(created.body.id);
    },
    400_000,
  );

  itReal(
    'scales out one member at a time on real CPU load up to max_size, then drains back to min_size without a failed request',
    async () => {
      // Thresholds a loaded 2-core machine reaches: demo-web asked for 90% of a core was measured as low as 0.3 of it
      // while other work ran, and a member serving the client loop below reads around a tenth. While it grows, members
      // under load on a saturated machine were measured below a tenth too (three of them sharing what is left of two
      // cores), which scaled it in between two scale-outs: scale-in is set where it belongs only once it is at max_size.
      const created = await s.api.post('/v1/clusters', {
        name: 'elastic',
        ...DEMO_CLUSTER,
        min_size: 1,
        max_size: 3,
        scale_out_threshold: 0.25,
        scale_in_threshold: 0.01,
      });
      expect(created.status).toBe(201);
      const id = created.body.id;
      let cluster = await waitForCluster(s.api, id, ['CREATE_COMPLETE'], 120_000);
      const { address, port } = cluster.load_balancer;

      // Every desired_size seen, in order: it must move by one at a time.
      const sizes: number[] = [cluster.desired_size];
      const watch = async () => {
        cluster = (await s.api.get(`/v1/clusters/${id}`)).body;
        if (sizes[sizes.length - 1] !== cluster.desired_size) sizes.push(cluster.desired_size);
        return cluster;
      };

      // Load on every member the cluster lists, each called at its own address, renewed before it runs out.
      let loading = true;
      const loader = (async () => {
        while (loading) {
          const c = await watch();
          await Promise.all(
            c.members
              .filter((m: any) => m.status === 'ACTIVE' && m.address)
              .map((m: any) => fetch(`http://${m.address}:${port}/load?percent=90&seconds=4`, { method: 'POST' }).catch(() => undefined)),
          );
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      })();
      try {
        await waitFor(
          'the cluster to grow to max_size and settle',
          async () => {
            const c = await watch();
            return c.desired_size === 3 && c.status === 'UPDATE_COMPLETE' && allHealthy(c) ? c : undefined;
          },
          { timeoutMs: 300_000, intervalMs: 200 },
        );
      } finally {
        loading = false;
        await loader;
      }
      expect(sizes).toEqual([1, 2, 3]);
      const outs = cluster.events.filter((e: any) => e.kind === 'scale_out');
      expect(outs).toHaveLength(2);
      for (const e of outs) expect(e.reason).toMatch(/average CPU \d\.\d\d over 6 s above 0\.25/);

      // Long connections through the balancer (upgrade tunnels the demo app echoes on), at least one on every member:
      // a member removed before the balancer let it go would cut them; drained, it keeps them until they close.
      const tunnels: Array<{ socket: Socket; instance: string }> = [];
      await waitFor(
        'a tunnel through the balancer to every member',
        async () => {
          tunnels.push(await openTunnel(address, port));
          return new Set(tunnels.map((t) => t.instance)).size === 3;
        },
        { timeoutMs: 60_000, intervalMs: 0 },
      );
      const drainedWithOpenTunnels = new Set<string>();

      // Load stopped: back to min_size, one drained member at a time, while a client keeps calling through the balancer.
      const thresholds = await s.api.request('PUT', `/v1/clusters/${id}`, { scale_in_threshold: 0.12 });
      expect(thresholds.status).toBe(202);
      await Promise.all(cluster.members.map((m: any) => fetch(`http://${m.address}:${port}/load?percent=0&seconds=1`, { method: 'POST' }).catch(() => undefined)));
      let calling = true;
      const failures: string[] = [];
      let calls = 0;
      const client = (async () => {
        while (calling) {
          try {
            const res = await fetch(`http://${address}:${port}/`);
            await res.text();
            if (res.status !== 200) failures.push(`status ${res.status}`);
          } catch (err) {
            failures.push(String(err));
          }
          calls++;
          // Steady rather than flat out: a client spinning on the members would itself be the load that keeps them.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      try {
        await waitFor(
          'the cluster to shrink to min_size and settle',
          async () => {
            const c = await watch();
            const draining = /removing member ([0-9a-f-]{36}): draining/.exec(c.progress?.step ?? '')?.[1];
            if (draining && !drainedWithOpenTunnels.has(draining)) {
              // Still running and still serving its open tunnels while the balancer drains it; closing them lets it go.
              expect(c.members.map((m: any) => m.instance_id)).toContain(draining);
              for (const t of tunnels.filter((t) => t.instance === draining)) {
                await expectEcho(t.socket);
                t.socket.destroy();
              }
              drainedWithOpenTunnels.add(draining);
            }
            return c.desired_size === 1 && c.status === 'UPDATE_COMPLETE' && c.members.length === 1 && allHealthy(c) ? c : undefined;
          },
          { timeoutMs: 300_000, intervalMs: 200 },
        );
      } finally {
        calling = false;
        await client;
      }
      expect(sizes).toEqual([1, 2, 3, 2, 1]);
      // Both members removed were drained with a tunnel open; the one left still echoes on its own.
      expect(drainedWithOpenTunnels.size).toBe(2);
      for (const t of tunnels.filter((t) => t.instance === cluster.members[0].instance_id)) await expectEcho(t.socket);
      for (const t of tunnels) t.socket.destroy();
      expect(calls).toBeGreaterThan(50);
      expect(failures).toEqual([]);
      const ins = cluster.events.filter((e: any) => e.kind === 'scale_in');
      expect(ins).toHaveLength(2);
      for (const e of ins) expect(e.reason).toMatch(/average CPU \d\.\d\d over 6 s below 0\.12/);
      await deleteAndWaitGone(id);
    },
    900_000,
  );

  describe('bad input', () => {
    const valid = { name: 'bad', ...DEMO_CLUSTER };

    it.each([
      [{ ...valid, min_size: 3, max_size: 2 }, 'max_size'],
      [{ ...valid, min_size: 0 }, 'min_size'],
      [{ ...valid, max_size: 0 }, 'max_size'],
      [{ ...valid, min_size: 1.5 }, 'min_size'],
      [{ ...valid, scale_out_threshold: 1.5 }, 'scale_out_threshold'],
      [{ ...valid, scale_in_threshold: -0.1 }, 'scale_in_threshold'],
      [{ ...valid, scale_out_threshold: 0.3, scale_in_threshold: 0.5 }, 'scale_in_threshold'],
      [{ ...valid, scale_in_threshold: 0.7 }, 'scale_in_threshold'],
      [{ ...valid, image: 'no-such-image' }, 'image'],
      [{ ...valid, flavor: 'm9.huge' }, 'flavor'],
      [{ ...valid, backend_network_id: 'elsewhere' }, 'backend_network_id'],
      [{ ...valid, backend_subnet_id: 'other-subnet' }, 'backend_subnet_id'],
      [{ ...valid, key_name: 'nobody' }, 'key_name'],
      [{ ...valid, port: 0 }, 'port'],
      [{ ...valid, dnsName: 'bad name!' }, 'dnsName'],
      [{ ...valid, status: 'CREATE_COMPLETE' }, 'status'],
      [{ ...valid, name: undefined }, 'name'],
      [{ ...valid, image: undefined }, 'image'],
    ])('400 naming the field for %j', async (body, field) => {
      const before = (await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n;
      const res = await s.api.post('/v1/clusters', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining(field) });
      expect((await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n).toBe(before);
    });

    it('401 without a valid key, on every route', async () => {
      const anon = s.stack.http.with({ 'x-api-key': 'sk_nope_nope' });
      for (const res of [
        await anon.post('/v1/clusters', valid),
        await anon.get('/v1/clusters'),
        await anon.get(`/v1/clusters/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    });

    it("403 for another project's cluster, 404 for none; never listed to another project", async () => {
      const created = await s.api.post('/v1/clusters', { name: 'mine', ...DEMO_CLUSTER, image: fx.plainImage });
      const id = created.body.id;
      const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
      for (const res of [await intruder.get(`/v1/clusters/${id}`), await intruder.delete(`/v1/clusters/${id}`)]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(id) });
      }
      expect((await s.api.get(`/v1/clusters/${id}`)).body.status).not.toBe('DELETE_IN_PROGRESS');
      expect(((await intruder.get('/v1/clusters')).body as any[]).some((c) => c.id === id)).toBe(false);
      for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await s.api.get(`/v1/clusters/${bad}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      await deleteAndWaitGone(id);
    });
  });

  describe('updates', () => {
    // Thresholds no idle or lightly called member reaches either way, and min_size = desired_size: the autoscaler keeps still.
    const spec = { ...DEMO_CLUSTER, min_size: 2, max_size: 3, scale_out_threshold: 0.95, scale_in_threshold: 0.01 };
    let cluster: any;
    // What a rolling update moves the members to: the plain image (on the testbed, whose catalog has one image, the demo's
    // own: no change) and another flavor; and what the update's events then say changed.
    const imageMoves = fx.plainImage !== fx.demoImage;
    let otherFlavorId: string;
    beforeAll(async () => {
      [{ id: otherFlavorId }] = await s.db.query(`SELECT id FROM flavors WHERE name = $1`, [fx.otherFlavorName]);
    });

    /** A client calling through the balancer in a loop until stopped; every failure is kept. */
    function clientLoop(url: string): { ok: () => number; stop: () => Promise<{ ok: number; failed: string[] }> } {
      let calling = true;
      const results = { ok: 0, failed: [] as string[] };
      const loop = (async () => {
        while (calling) {
          try {
            const res = await fetch(url);
            await res.arrayBuffer();
            if (res.status === 200) results.ok++;
            else results.failed.push(`status ${res.status}`);
          } catch (err) {
            results.failed.push(String(err));
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      return {
        ok: () => results.ok,
        stop: async () => {
          calling = false;
          await loop;
          return results;
        },
      };
    }

    /** The cluster's rows as they are, to see that a refused update changed nothing. */
    async function rowOf(id: string): Promise<any> {
      const [row] = await s.db.query(`SELECT * FROM clusters WHERE id = $1`, [id]);
      return row;
    }

    // The `plain` image serving the same answer as demo-web (who answered), from its user_data: another image to roll to.
    const PLAIN_WEB = [
      "cat > web.js <<'JS'",
      "const instance = (process.env.STRATUS_INSTANCE_ID || 'unknown').split('/').pop();",
      "require('node:http').createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ instance, image: 'plain' })); }).listen(Number(process.env.PORT), process.env.HOST);",
      'JS',
      '"$STRATUS_NODE" web.js > web.log 2>&1 &',
      '',
    ].join('\n');

    it('replaces every member one at a time on an image and flavor change, the new one serving before an old one drains, without one failed request', async () => {
      const created = await s.api.post('/v1/clusters', { name: 'rolling', ...spec });
      expect(created.status).toBe(201);
      cluster = await waitForCluster(s.api, created.body.id, ['CREATE_COMPLETE'], 240_000);
      expect(cluster).toMatchObject({ spec_generation: 1, flavor_id: fx.flavorId });
      const before = cluster.members.map((m: any) => m.instance_id);
      expect(before).toHaveLength(2);
      const url = `http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`;
      // Called throughout where a member answers; elsewhere the statuses below say the same of the provider's balancer.
      const client = realResources() ? clientLoop(url) : null;

      // Watched closely: statuses in order, the most new members not serving at once, the fewest serving.
      const statuses: string[] = [];
      let mostNewPending = 0;
      let mostMembers = 0;
      let fewestServing = Infinity;
      let done: any;
      try {
        await whenReal(() => waitFor('the client to be served', async () => (await answeredBy(url)) !== undefined));
        const res = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, { image: fx.plainImage, user_data: PLAIN_WEB, flavor: fx.otherFlavorName });
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({ id: cluster.id, status: 'UPDATE_IN_PROGRESS', image_id: fx.plainImage, flavor_id: otherFlavorId, spec_generation: 2, desired_size: 2 });
        statuses.push(res.body.status);
        done = await waitFor(
          'every member replaced by one of the new flavor',
          async () => {
            const c = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
            if (statuses[statuses.length - 1] !== c.status) statuses.push(c.status);
            mostNewPending = Math.max(mostNewPending, c.members.filter((m: any) => m.spec_generation === 2 && m.health !== 'up').length);
            mostMembers = Math.max(mostMembers, c.members.filter((m: any) => m.status === 'BUILD' || m.status === 'ACTIVE').length);
            fewestServing = Math.min(fewestServing, c.members.filter((m: any) => m.status === 'ACTIVE' && m.health === 'up').length);
            if (c.status === 'UPDATE_FAILED') throw new Error(`update failed: ${c.status_reason}`);
            return c.status === 'UPDATE_COMPLETE' && allHealthy(c) && c.members.every((m: any) => m.spec_generation === 2) ? c : undefined;
          },
          { timeoutMs: 300_000, intervalMs: 50 },
        );
      } finally {
        if (client) {
          const results = await client.stop();
          expect(results.failed).toEqual([]);
          expect(results.ok).toBeGreaterThan(50);
        }
      }
      expect(statuses).toEqual(['UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE']);
      expect(mostNewPending).toBe(1);
      expect(mostMembers).toBeLessThanOrEqual(3);
      expect(fewestServing).toBeGreaterThanOrEqual(2);
      expect(done.members).toHaveLength(2);
      for (const m of done.members) {
        expect(before).not.toContain(m.instance_id);
        expect((await s.api.get(`/v1/instances/${m.instance_id}`)).body).toMatchObject({ image_id: fx.plainImage, flavor_id: otherFlavorId });
      }
      for (const id of before) {
        expect((await s.api.get(`/v1/instances/${id}`)).status).toBe(404);
        expect(await instanceBacked(s.stack.env.DATA_DIR, id)).toBe(false);
      }
      // Each new member was created only once the one before had joined the balancer.
      const fresh = [...done.members].sort((a: any, b: any) => a.created_at.localeCompare(b.created_at));
      expect(Date.parse(fresh[1].created_at)).toBeGreaterThanOrEqual(Date.parse(fresh[0].joined_at));
      const reasons = done.events.filter((e: any) => e.kind === 'update').map((e: any) => e.reason);
      const said = [imageMoves ? `image ${fx.demoImage} to ${fx.plainImage}` : null, `flavor ${fx.flavorId} to ${otherFlavorId}`, 'user_data changed'].filter((x) => x);
      expect(reasons).toContainEqual(`update started: ${said.join('; ')}; members replaced one at a time (spec 2)`);
      const changed = imageMoves ? 'image and flavor changed' : 'flavor changed';
      for (const id of before) expect(reasons).toContainEqual(expect.stringMatching(new RegExp(`^member ${id} replaced by [0-9a-f-]{36}: ${changed}$`)));
      if (realResources()) {
        const seen = new Set<string>();
        await waitFor('both new members to answer through the balancer', async () => {
          seen.add(await answeredBy(url));
          return seen.size === 2;
        });
        expect([...seen].sort()).toEqual(done.members.map((m: any) => m.instance_id).sort());
      } else {
        await waitFor('the balancer to hold the new members alone', async () => (await heldBackends(done.id))?.join() === asBackends(done).join(), {
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
      }
      cluster = done;
    }, 600_000);

    it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
      const cases: Array<[object, string]> = [
        [{ min_size: 3, max_size: 2 }, 'max_size'],
        [{ max_size: 1 }, 'max_size'],
        [{ min_size: 0 }, 'min_size'],
        [{ min_size: 1.5 }, 'min_size'],
        [{ desired_size: 4 }, 'desired_size'],
        [{ desired_size: 1 }, 'desired_size'],
        [{ scale_out_threshold: 1.5 }, 'scale_out_threshold'],
        [{ scale_in_threshold: 0.96 }, 'scale_in_threshold'],
        [{ scale_out_threshold: 0.3, scale_in_threshold: 0.5 }, 'scale_in_threshold'],
        [{ image: 'no-such-image' }, 'image'],
        [{ flavor: 'm9.huge' }, 'flavor'],
        [{ key_name: 'nobody' }, 'key_name'],
        [{ image: 7 }, 'image'],
        [{ port: 9090 }, 'port'],
        [{ port: 0 }, 'port'],
        [{ dnsName: 'elsewhere' }, 'dnsName'],
        [{ dnsName: 'bad name!' }, 'dnsName'],
        [{ backend_network_id: 'elsewhere' }, 'backend_network_id'],
        [{ backend_subnet_id: 'other-subnet' }, 'backend_subnet_id'],
        [{ status: 'UPDATE_COMPLETE' }, 'status'],
        [{ spec_generation: 9 }, 'spec_generation'],
        [{ name: null }, 'name'],
      ];
      const before = await rowOf(cluster.id);
      for (const [body, field] of cases) {
        const res = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining(field) });
      }
      expect(await rowOf(cluster.id)).toEqual(before);
      // The fixed fields sent as they are (a whole create body again) are no change: nothing starts.
      const same = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, {
        name: 'rolling',
        ...spec,
        image: fx.plainImage,
        user_data: PLAIN_WEB,
        flavor: fx.otherFlavorName,
        dnsName: cluster.dnsName,
        backend_subnet_id: subnet,
      });
      expect(same.status).toBe(202);
      expect(same.body).toMatchObject({ status: 'UPDATE_COMPLETE', spec_generation: 2 });
      expect(await rowOf(cluster.id)).toEqual(before);
    });

    it('takes new sizes and thresholds at once: desired_size brought within them, the cluster grown and shrunk to it', async () => {
      const grow = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, { min_size: 3, max_size: 4, scale_out_threshold: 0.9, scale_in_threshold: 0.02 });
      expect(grow.status).toBe(202);
      expect(grow.body).toMatchObject({
        status: 'UPDATE_IN_PROGRESS',
        min_size: 3,
        max_size: 4,
        desired_size: 3,
        scale_out_threshold: 0.9,
        scale_in_threshold: 0.02,
        spec_generation: 2,
      });
      const c = await waitFor(
        'three healthy members',
        async () => {
          const now = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
          return now.status === 'UPDATE_COMPLETE' && allHealthy(now) ? now : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 500 },
      );
      expect(c.members).toHaveLength(3);
      // A member added by a resize is of the cluster's current spec.
      expect(c.members.every((m: any) => m.spec_generation === 2)).toBe(true);

      // Lowered below desired_size, sent along: the cluster drains to it, one member.
      const shrink = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, { min_size: 2, max_size: 2, desired_size: 2 });
      expect(shrink.status).toBe(202);
      expect(shrink.body).toMatchObject({ status: 'UPDATE_IN_PROGRESS', min_size: 2, max_size: 2, desired_size: 2 });
      cluster = await waitFor(
        'two members again',
        async () => {
          const now = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
          return now.status === 'UPDATE_COMPLETE' && now.members.length === 2 && allHealthy(now) ? now : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 500 },
      );
      const reasons = cluster.events.filter((e: any) => e.kind === 'update').map((e: any) => e.reason);
      expect(reasons).toContainEqual('update started: min_size 2 to 3; max_size 3 to 4; scale_out_threshold 0.95 to 0.9; scale_in_threshold 0.01 to 0.02; desired_size 2 to 3');
      expect(reasons).toContainEqual('update started: min_size 3 to 2; max_size 4 to 2; desired_size 3 to 2');
    }, 700_000);

    (failingMember ? it : it.skip)(
      'ends UPDATE_FAILED when a new member cannot boot, back on the previous spec, its members serving throughout',
      async () => {
        const before = cluster.members.map((m: any) => m.instance_id).sort();
        const url = `http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`;
        const client = realResources() ? clientLoop(url) : null;
        let failed: any;
        try {
          // A member definition whose boot fails (user_data that exits, a flavor Nova cannot place).
          const res = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, failingMember!.fields);
          expect(res.status).toBe(202);
          expect(res.body).toMatchObject({ status: 'UPDATE_IN_PROGRESS', spec_generation: 3 });
          failed = await waitForCluster(s.api, cluster.id, ['UPDATE_FAILED', 'UPDATE_COMPLETE'], 180_000, 50);
          // Served throughout, and for a while after: a failure may come within a few requests.
          if (client) await waitFor('the client to be served a while', async () => client.ok() > 10, { timeoutMs: 60_000 });
        } finally {
          if (client) {
            const results = await client.stop();
            expect(results.failed).toEqual([]);
            expect(results.ok).toBeGreaterThan(10);
          }
        }
        expect(failed.status).toBe('UPDATE_FAILED');
        expect(failed.status_reason).toMatch(/^rolling update failed: new member [0-9a-f-]{36} could not boot: /);
        for (const reason of failingMember!.reasons) expect(failed.status_reason).toContain(reason);
        // Back on what the serving members run, and those are the cluster's spec again.
        expect(failed).toMatchObject({ image_id: fx.plainImage, flavor_id: otherFlavorId, spec_generation: 4 });
        const c = await waitFor(
          'the failed member to be gone',
          async () => {
            const now = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
            return now.members.length === 2 ? now : undefined;
          },
          { timeoutMs: 180_000, intervalMs: 500 },
        );
        expect(c.members.map((m: any) => m.instance_id).sort()).toEqual(before);
        expect(c.members.every((m: any) => m.spec_generation === 4 && m.health === 'up')).toBe(true);
        expect(c.events.find((e: any) => e.kind === 'update').reason).toMatch(new RegExp(`^rolling update failed: .*; back to image ${fx.plainImage}, flavor ${otherFlavorId}`));
        const [{ user_data }] = await s.db.query(`SELECT user_data FROM clusters WHERE id = $1`, [cluster.id]);
        expect(user_data).toBe(PLAIN_WEB);

        // From UPDATE_FAILED, an update is taken again, and heals as any.
        const again = await s.api.request('PUT', `/v1/clusters/${cluster.id}`, { scale_out_threshold: 0.92 });
        expect(again.body).toMatchObject({ status: 'UPDATE_IN_PROGRESS', scale_out_threshold: 0.92 });
        cluster = await waitForCluster(s.api, cluster.id, ['UPDATE_COMPLETE'], 120_000);
        expect(cluster.members.map((m: any) => m.instance_id).sort()).toEqual(before);
      },
      500_000,
    );

    it("401 without a key, 403 for another project's cluster, 404 for none, 409 while being built, failed or deleted", async () => {
      const anon = s.stack.http.with({ 'x-api-key': 'sk_nope_nope' });
      const unauthorized = await anon.request('PUT', `/v1/clusters/${cluster.id}`, { min_size: 3 });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body.error.code).toBe('unauthorized');
      const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
      const before = await rowOf(cluster.id);
      const forbidden = await intruder.request('PUT', `/v1/clusters/${cluster.id}`, { min_size: 3 });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(cluster.id) });
      expect(await rowOf(cluster.id)).toEqual(before);
      for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await s.api.request('PUT', `/v1/clusters/${bad}`, { min_size: 3 });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }

      // Being built: a member that never binds its port keeps it CREATE_IN_PROGRESS on the local provider; on the testbed,
      // Nova's boot and Octavia's changes take seconds, far longer than the next request.
      const building = (await s.api.post('/v1/clusters', { name: 'unbuilt', ...DEMO_CLUSTER, image: fx.plainImage, user_data: 'sleep 1\n' })).body;
      const busy = await s.api.request('PUT', `/v1/clusters/${building.id}`, { max_size: 4 });
      expect(busy.status).toBe(409);
      expect(busy.body.error).toEqual({ code: 'conflict', message: expect.stringContaining('CREATE_IN_PROGRESS') });
      // A bad field is still said first.
      expect((await s.api.request('PUT', `/v1/clusters/${building.id}`, { max_size: 0 })).status).toBe(400);
      // Being deleted.
      expect((await s.api.delete(`/v1/clusters/${building.id}`)).status).toBe(204);
      const deleting = await s.api.request('PUT', `/v1/clusters/${building.id}`, { max_size: 4 });
      expect(deleting.status).toBe(409);
      expect(deleting.body.error.message).toContain('DELETE_IN_PROGRESS');
      // Failed to build.
      if (failingMember) {
        const broken = (await s.api.post('/v1/clusters', { name: 'broken2', ...DEMO_CLUSTER, ...failingMember.fields })).body;
        await waitForCluster(s.api, broken.id, ['CREATE_FAILED'], 180_000);
        const failed = await s.api.request('PUT', `/v1/clusters/${broken.id}`, { min_size: 2 });
        expect(failed.status).toBe(409);
        expect(failed.body.error.message).toContain('CREATE_FAILED');
        await deleteAndWaitGone(broken.id);
      }
      await waitFor(`cluster ${building.id} to be gone`, async () => (await s.api.get(`/v1/clusters/${building.id}`)).status === 404, { timeoutMs: 300_000, intervalMs: 500 });
      await deleteAndWaitGone(cluster.id);
    }, 900_000);
  });

  describe('from-instance', () => {
    // What the cluster is made from: a running demo app with a proxy host (its dname) and a gateway route to its port.
    const fields = { flavor: fx.flavorName, backend_network_id: fx.network, key_name: fx.keypair };
    let solo: any;
    let routePort: number;
    const soloHost = 'solo-app.localhost';

    /** One GET / on a connection of its own (a new connection sees where the URL leads now); the member that answered. */
    async function freshGet(url: string, host?: string): Promise<string> {
      const res = await request(url, { headers: host ? { host } : {}, reset: true });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
      return JSON.parse(text).instance;
    }

    /** The listeners the provider holds for `host`'s proxy host (where nothing may be connected to). */
    async function hostListeners(host: string): Promise<Array<{ backends: string[] }>> {
      const held = await providerListeners(s.stack.env.DATA_DIR, 'host-');
      return held.filter((l) => (l.spec.hosts ?? []).includes(host)).map((l) => ({ backends: l.backends.map((b) => `${b.address}:${b.port}`) }));
    }

    beforeAll(async () => {
      const created = await s.api.post('/v1/instances', { name: 'solo', dname: 'solo-app', ...DEMO_INSTANCE, port: DEMO_CLUSTER.port });
      expect(created.status).toBe(202);
      solo = await waitForInstance(s.api, created.body.id, ['ACTIVE'], 180_000);
      routePort = Number(s.stack.env.GATEWAY_PORT_RANGE.split('-')[0]) + 7;
      const route = await s.cloud.post('/api/cloud/gateway/create', { targetIp: solo.metadata.privateIp, targetPort: DEMO_CLUSTER.port, protocol: 'tcp', port: routePort });
      expect(route.status).toBe(200);
      if (realResources()) {
        await waitFor('its URL to answer', async () => {
          const [byName, byRoute] = await Promise.all([freshGet(`http://127.0.0.1:${edgePort}/`, soloHost), freshGet(`http://127.0.0.1:${routePort}/`)]).catch(() => []);
          return byName === solo.id && byRoute === solo.id;
        });
      } else {
        const backend = `${solo.metadata.privateIp}:${DEMO_CLUSTER.port}`;
        await waitFor('the provider to hold its proxy host', async () => (await hostListeners(soloHost)).some((l) => l.backends.join() === backend), {
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
      }
    }, 400_000);

    it('adopts the running instance as it is, keeps its URL answering throughout, and balances over every member', async () => {
      const pidBefore = realResources() ? ((await (await fetch(`http://${solo.metadata.privateIp}:${DEMO_CLUSTER.port}/`)).json()) as any).pid : null;
      // A client on each of its URLs, each request on a connection of its own, from before the call to after CREATE_COMPLETE.
      let stop = false;
      const loops = [`http://127.0.0.1:${edgePort}/ (${soloHost})`, `http://127.0.0.1:${routePort}/`].map((label) => ({
        label,
        ok: 0,
        failed: [] as string[],
        seen: new Set<string>(),
      }));
      const run = async (loop: (typeof loops)[number], url: string, host?: string) => {
        while (!stop) {
          try {
            loop.seen.add(await freshGet(url, host));
            loop.ok++;
          } catch (err) {
            loop.failed.push(String(err));
          }
        }
      };
      // Where nothing answers, no client runs: what the URLs lead to is read from the provider after the build.
      const clients = realResources() ? [run(loops[0], `http://127.0.0.1:${edgePort}/`, soloHost), run(loops[1], `http://127.0.0.1:${routePort}/`)] : [];
      let cluster: any;
      try {
        await whenReal(() => waitFor('both clients to be served', () => loops.every((l) => l.ok > 20)));
        const key = randomUUID();
        const body = { name: 'adopted', instance_id: solo.id, ...fields, min_size: 3 };
        const created = await s.api.post('/v1/clusters/from-instance', body, { 'idempotency-key': key });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({
          message: 'Stack creation started',
          status: 'CREATE_IN_PROGRESS',
          source_instance_id: solo.id,
          image_id: `snap-${created.body.id}`,
          port: DEMO_CLUSTER.port,
          min_size: 3,
          desired_size: 3,
          members: [expect.objectContaining({ instance_id: solo.id, status: 'ACTIVE' })],
        });
        // The same key answers the same cluster, not a second one (nor a 409 for a member).
        const again = await s.api.post('/v1/clusters/from-instance', body, { 'idempotency-key': key });
        expect(again.body.id).toBe(created.body.id);
        // The testbed's fake hypervisor uploads no snapshot: the test does what a real one would.
        await whenOpenStack(() => uploadTestbedSnapshot(created.body.image_id));

        cluster = await waitForCluster(s.api, created.body.id, ['CREATE_COMPLETE', 'CREATE_FAILED'], 400_000);
        expect(cluster.status_reason).toBeNull();
        expect(cluster.status).toBe('CREATE_COMPLETE');
        expect(allHealthy(cluster)).toBe(true);
        expect(cluster.members[0].instance_id).toBe(solo.id);
        await whenReal(async () => {
          // After it too: both URLs reach every member (a client's new connection goes through the balancer).
          const members = cluster.members.map((m: any) => m.instance_id).sort();
          const okAtComplete = loops.map((l) => l.ok);
          for (const loop of loops) loop.seen.clear();
          await waitFor('both URLs to reach all three members', () => loops.every((l) => l.seen.size === 3), { timeoutMs: 60_000 });
          await waitFor('both clients to go on after CREATE_COMPLETE', () => loops.every((l, i) => l.ok > okAtComplete[i] + 20));
          for (const loop of loops) expect([...loop.seen].sort()).toEqual(members);
        });
      } finally {
        stop = true;
        await Promise.all(clients);
      }
      if (realResources()) {
        for (const loop of loops) {
          expect({ url: loop.label, failed: loop.failed }).toEqual({ url: loop.label, failed: [] });
          expect(loop.ok).toBeGreaterThan(50);
        }
        // Not rebuilt, not restarted: the same process serves.
        expect(((await (await fetch(`http://${solo.metadata.privateIp}:${DEMO_CLUSTER.port}/`)).json()) as any).pid).toBe(pidBefore);
        // The balancer by its own address and dnsName reaches every member too.
        const seen = new Set<string>();
        await waitFor('all three members through the balancer', async () => {
          seen.add(await answeredBy(`http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`));
          return seen.size === 3;
        });
        expect((await viaDnsName(cluster.dnsName)).status).toBe(200);
      } else {
        // The instance kept (the same server), every member a backend of the balancer, and the URL's proxy host leading to the balancer.
        expect(await instanceBacked(s.stack.env.DATA_DIR, solo.id)).toBe(true);
        expect(await heldBackends(cluster.id)).toEqual(asBackends(cluster));
        const balancer = `${cluster.load_balancer.address}:${cluster.load_balancer.port}`;
        await waitFor('its proxy host to lead to the balancer', async () => (await hostListeners(soloHost)).some((l) => l.backends.join() === balancer), {
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
      }
      // The URL is the cluster's now: the proxy host and the route outlive the instance.
      const hosts = (await s.stack.http.get('/api/cloud/dns/list')).body as any[];
      const movedHost = hosts.find((h) => h.domain === soloHost);
      expect(movedHost).toMatchObject({ clusterId: cluster.id, instanceId: null, forwardPort: DEMO_CLUSTER.port });
      // Its port is the cluster's: not the proxy host's to change.
      const repointed = await s.stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${movedHost.id}`, { updateData: { forwardPort: 3000 } });
      expect(repointed.status).toBe(400);
      expect(repointed.body.error.message).toContain('updateData.forwardPort');
      expect((await s.api.get(`/v1/instances/${solo.id}`)).body.metadata.domains).toBeUndefined();
      const [route] = await s.db.query(`SELECT host(target_ip::inet) AS ip, target_lease FROM gateway_routes WHERE port = $1`, [routePort]);
      expect(route).toEqual({ ip: cluster.load_balancer.address, target_lease: `cluster-${cluster.id}` });
      // The other members booted from the snapshot, an image of this project only.
      const imageIds = async (apiKey: string) => ((await s.stack.http.get('/v1/images?limit=100', { 'x-api-key': apiKey })).body.items as any[]).map((i) => i.id);
      expect(await imageIds(s.owner.apiKey)).toContain(cluster.image_id);
      expect(await imageIds(s.other.apiKey)).not.toContain(cluster.image_id);
      for (const m of cluster.members.slice(1)) expect((await s.api.get(`/v1/instances/${m.instance_id}`)).body.image_id).toBe(cluster.image_id);
      const built = cluster.events.filter((e: any) => e.kind === 'build').map((e: any) => e.reason);
      expect(built).toContainEqual(
        expect.stringContaining(`instance ${solo.id} serves behind the balancer; its URL (${soloHost}, gateway port ${routePort}) now reaches the balancer`),
      );

      // Taken once only.
      const twice = await s.api.post('/v1/clusters/from-instance', { name: 'twice', instance_id: solo.id, ...fields });
      expect(twice.status).toBe(409);
      expect(twice.body.error.message).toContain(`already a member of cluster ${cluster.id}`);

      // Deleting the cluster deletes every member, the adopted one included, and the URL and image with it.
      await deleteAndWaitGone(cluster.id);
      expect((await s.api.get(`/v1/instances/${solo.id}`)).status).toBe(404);
      expect(((await s.stack.http.get('/api/cloud/dns/list')).body as any[]).some((h) => h.domain === soloHost)).toBe(false);
      expect(await s.db.query(`SELECT 1 FROM gateway_routes WHERE port = $1`, [routePort])).toEqual([]);
      expect(await imageIds(s.owner.apiKey)).not.toContain(cluster.image_id);
      expect(await instanceBacked(s.stack.env.DATA_DIR, solo.id)).toBe(false);
      await whenReal(() =>
        waitFor('the route to stop answering', () =>
          fetch(`http://127.0.0.1:${routePort}/`).then(
            () => false,
            () => true,
          ),
        ),
      );
    }, 900_000);

    (failingMember ? it : it.skip)(
      'a build that fails leaves the instance running behind the balancer, its URL answering; deleting the cluster deletes it',
      async () => {
        const made = await s.api.post('/v1/instances', { name: 'keeper', dname: 'keeper-app', ...DEMO_INSTANCE, port: DEMO_CLUSTER.port });
        const keeper = await waitForInstance(s.api, made.body.id, ['ACTIVE'], 180_000);
        // The other members cannot boot (the image is the instance's snapshot: what fails is the rest of the definition).
        const { image: _image, ...failing } = failingMember!.fields;
        const created = await s.api.post('/v1/clusters/from-instance', { name: 'doomed', instance_id: keeper.id, ...fields, min_size: 2, ...failing });
        expect(created.status).toBe(201);
        await whenOpenStack(() => uploadTestbedSnapshot(created.body.image_id));
        const failed = await waitForCluster(s.api, created.body.id, ['CREATE_FAILED', 'CREATE_COMPLETE'], 300_000);
        expect(failed.status).toBe('CREATE_FAILED');
        expect(failed.status_reason).toMatch(/^member [0-9a-f-]{36} its instance failed: /);
        // The member's own reason. On the testbed Nova refuses that flavor before it would place it: a snapshot keeps
        // its source's disk size as the image's minimum, more than the flavor has.
        const reasons = providerUnderTest() === 'openstack' ? ["Flavor's disk is smaller than the minimum size specified in image metadata"] : failingMember!.reasons;
        for (const reason of reasons) expect(failed.status_reason).toContain(reason);
        const left = await waitFor(
          'the other member to be gone',
          async () => {
            const c = (await s.api.get(`/v1/clusters/${created.body.id}`)).body;
            return c.members.length === 1 ? c : undefined;
          },
          { timeoutMs: 180_000, intervalMs: 500 },
        );
        expect(left.members).toEqual([expect.objectContaining({ instance_id: keeper.id, status: 'ACTIVE', health: 'up' })]);
        if (realResources()) {
          expect(await freshGet(`http://127.0.0.1:${edgePort}/`, 'keeper-app.localhost')).toBe(keeper.id);
        } else {
          expect(await instanceBacked(s.stack.env.DATA_DIR, keeper.id)).toBe(true);
          expect(await heldBackends(created.body.id)).toEqual(asBackends(left));
        }
        await deleteAndWaitGone(created.body.id);
        expect((await s.api.get(`/v1/instances/${keeper.id}`)).status).toBe(404);
      },
      600_000,
    );

    describe('bad input', () => {
      let target: any;
      beforeAll(async () => {
        const created = await s.api.post('/v1/instances', { name: 'target', ...DEMO_INSTANCE, port: DEMO_CLUSTER.port });
        target = await waitForInstance(s.api, created.body.id, ['ACTIVE'], 180_000);
      }, 300_000);
      const valid = () => ({ name: 'bad', instance_id: target.id, ...fields });

      it.each([
        [{ min_size: 3, max_size: 2 }, 'max_size'],
        [{ min_size: 0 }, 'min_size'],
        [{ scale_out_threshold: 0.3, scale_in_threshold: 0.5 }, 'scale_in_threshold'],
        [{ flavor: 'm9.huge' }, 'flavor'],
        [{ backend_network_id: 'elsewhere' }, 'backend_network_id'],
        [{ backend_subnet_id: 'other-subnet' }, 'backend_subnet_id'],
        [{ key_name: 'nobody' }, 'key_name'],
        [{ dnsName: 'bad name!' }, 'dnsName'],
        [{ port: 9999 }, 'port'],
        [{ image: 'demo-web' }, 'image'],
        [{ instance_id: undefined }, 'instance_id'],
        [{ instance_id: 'not-a-uuid' }, 'instance_id'],
        [{ instance_id: 42 }, 'instance_id'],
        [{ name: undefined }, 'name'],
      ] as Array<[Record<string, unknown>, string]>)('400 naming the field for %j, and nothing made', async (patch, field) => {
        const before = (await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n;
        const res = await s.api.post('/v1/clusters/from-instance', { ...valid(), ...patch });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining(field) });
        expect((await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n).toBe(before);
        expect(await s.db.query(`SELECT 1 FROM cluster_members WHERE instance_id = $1`, [target.id])).toEqual([]);
      });

      it('401 without a valid key', async () => {
        const res = await s.stack.http.with({ 'x-api-key': 'sk_nope_nope' }).post('/v1/clusters/from-instance', valid());
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      });

      it("403 for another project's instance, 404 for none, 409 for one not ACTIVE; nothing made", async () => {
        const before = (await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n;
        const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
        const stolen = await intruder.post('/v1/clusters/from-instance', valid());
        expect(stolen.status).toBe(403);
        expect(stolen.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(target.id) });
        const missing = randomUUID();
        const none = await s.api.post('/v1/clusters/from-instance', { ...valid(), instance_id: missing });
        expect(none.status).toBe(404);
        expect(none.body.error).toEqual({ code: 'not_found', message: expect.stringContaining(missing) });
        const stopped = await saveBareInstance(s.db, {
          projectId: s.owner.projectId,
          userId: s.owner.userId,
          status: 'SHUTOFF',
          port: DEMO_CLUSTER.port,
          imageId: fx.plainImage,
          networkId: fx.network,
        });
        const notActive = await s.api.post('/v1/clusters/from-instance', { ...valid(), instance_id: stopped.id });
        expect(notActive.status).toBe(409);
        expect(notActive.body.error.message).toContain('SHUTOFF');
        expect((await s.db.query(`SELECT count(*)::int AS n FROM clusters`))[0].n).toBe(before);
      });
    });
  });
});
