import { allHealthy, answeredBy, DEMO_CLUSTER, instanceLeadersUnder, useSuite, waitFor, waitForCluster } from '@stratus/testing';
import { join } from 'node:path';
import { request } from 'undici';

/**
 * Clusters on the local provider: real member processes of the demo web app,
 * behind the edge's HAProxy, built one at a time, healed when a member dies.
 */
describe('clusters', () => {
  // The edge is the balancer: its HAProxy checks the members and serves the cluster's address and dnsName.
  const s = useSuite({}, ['api', 'worker', 'edge']);
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

  async function deleteAndWaitGone(id: string): Promise<void> {
    expect((await s.api.delete(`/v1/clusters/${id}`)).status).toBe(204);
    await waitFor(`cluster ${id} to be gone`, async () => (await s.api.get(`/v1/clusters/${id}`)).status === 404, { timeoutMs: 60_000 });
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
        backend_subnet_id: 'private-subnet',
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

      // Through the balancer, every member answers.
      const { address, port } = cluster.load_balancer;
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
    }, 300_000);

    it('replaces a SIGKILLed member while a client loops through the balancer without one failed request', async () => {
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
    }, 240_000);

    it('replaces a member whose instance is deleted behind its back', async () => {
      const victim = cluster.members[0];
      expect((await s.api.delete(`/v1/instances/${victim.instance_id}`)).status).toBe(204);
      const healed = await waitFor(
        'three healthy members again, the deleted one replaced',
        async () => {
          const c = (await s.api.get(`/v1/clusters/${cluster.id}`)).body;
          return c.status === 'UPDATE_COMPLETE' && allHealthy(c) && !c.members.some((m: any) => m.instance_id === victim.instance_id) ? c : undefined;
        },
        { timeoutMs: 150_000, intervalMs: 50 },
      );
      // Seen while its row was DELETING (named), or once it was gone with its link (counted missing).
      const heals = healed.events.filter((e: any) => e.kind === 'heal').map((e: any) => e.reason);
      expect(heals.some((r: string) => r.includes(`member ${victim.instance_id}: its instance was deleted`) || r.includes('missing (instance deleted)'))).toBe(true);
      cluster = healed;
    }, 240_000);

    it('deletes the cluster: members and balancer go, and the address stops answering', async () => {
      const url = `http://${cluster.load_balancer.address}:${cluster.load_balancer.port}/`;
      const instancesDir = join(s.stack.env.DATA_DIR, 'instances');
      await deleteAndWaitGone(cluster.id);
      for (const m of cluster.members) {
        expect((await s.api.get(`/v1/instances/${m.instance_id}`)).status).toBe(404);
        expect(instanceLeadersUnder(instancesDir).has(m.instance_id)).toBe(false);
      }
      await waitFor('the balancer to stop answering', async () =>
        fetch(url).then(
          () => false,
          () => true,
        ),
      );
      expect((await s.api.get('/v1/clusters')).body.some((c: any) => c.id === cluster.id)).toBe(false);
    });
  });

  it('keeps a member that never binds its port out of the balancer, reports it unhealthy, and does not fail', async () => {
    // The plain image boots (runs user_data) and idles: nothing ever listens on the port.
    const created = await s.api.post('/v1/clusters', { name: 'silent', ...DEMO_CLUSTER, image: 'plain', user_data: 'sleep 1\n' });
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

  it('ends CREATE_FAILED with the reason when a member cannot boot, and leaves no member running', async () => {
    const created = await s.api.post('/v1/clusters', { name: 'broken', ...DEMO_CLUSTER, image: 'plain', min_size: 2, user_data: 'echo about to fail\nexit 7\n' });
    const failed = await waitForCluster(s.api, created.body.id, ['CREATE_FAILED', 'CREATE_COMPLETE']);
    expect(failed.status).toBe('CREATE_FAILED');
    expect(failed.status_reason).toContain('exited with code 7');
    const instancesDir = join(s.stack.env.DATA_DIR, 'instances');
    await waitFor('its members to be gone', async () => (await s.api.get(`/v1/clusters/${created.body.id}`)).body.members.length === 0, { timeoutMs: 60_000 });
    for (const m of failed.members) expect(instanceLeadersUnder(instancesDir).has(m.instance_id)).toBe(false);
    await deleteAndWaitGone(created.body.id);
  });

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
      const created = await s.api.post('/v1/clusters', { name: 'mine', ...DEMO_CLUSTER, image: 'plain' });
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
});
