import {
  createTenant,
  DEMO_INSTANCE,
  HttpClient,
  itReal,
  itWithEdge,
  providerListeners,
  providerUnderTest,
  realResources,
  saveBareInstance,
  Tenant,
  TestStack,
  testDataSource,
  waitFor,
  waitForInstance,
  whenReal,
} from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { request } from 'undici';
import { DataSource } from 'typeorm';

describe('DNS proxy hosts through the edge', () => {
  let stack: TestStack;
  let db: DataSource;
  let owner: Tenant;
  let other: Tenant;
  let api: HttpClient;
  let cloud: HttpClient;
  let edgePort: number;
  let web: any;
  let second: any;

  /** A request to the edge's HTTP listener with a Host header (Node does not resolve *.localhost by itself). */
  async function viaEdge(host: string, path = '/') {
    const res = await request(`http://127.0.0.1:${edgePort}${path}`, { headers: { host } });
    const text = await res.body.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.statusCode, body };
  }

  /**
   * Under the fake provider and on the testbed nothing answers (and under the fake one the
   * edge is not the load balancer: a proxy host is a listener the worker makes through the
   * provider's load-balancer driver): what is left to see of a proxy host is the provider's
   * listener for its name (the fake's, Octavia's; Host matching ignores case, port and a
   * trailing dot), on the HTTP listener's address and port, with instance `id`'s address and
   * `port` (by default the instance's own, as its dname's proxy host has) as its one backend.
   */
  async function providerServes(host: string, id: string, port?: number): Promise<boolean> {
    const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    const [instance] = await db.query(`SELECT host(address) AS address, port FROM instances WHERE id = $1`, [id]);
    const mine = (await providerListeners(stack.env.DATA_DIR, 'host-')).filter((l) => l.spec.protocol === 'http' && (l.spec.hosts ?? []).includes(name));
    return (
      mine.length === 1 &&
      mine[0].spec.address === (stack.env.EDGE_HTTP_HOST || '127.0.0.1') &&
      mine[0].spec.port === edgePort &&
      mine[0].backends.length === 1 &&
      mine[0].backends[0].address === instance.address &&
      mine[0].backends[0].port === (port ?? instance.port) &&
      mine[0].backends[0].state === 'active'
    );
  }

  /**
   * The host is served no more: the edge answers 404 for it (where an edge runs: not on
   * OpenStack, whose load balancers are the cloud's), and the provider holds no listener for
   * it (see providerServes).
   */
  async function gone(host: string): Promise<boolean> {
    if (providerUnderTest() !== 'openstack' && (await viaEdge(host)).status !== 404) return false;
    return realResources() || !(await providerListeners(stack.env.DATA_DIR, 'host-')).some((l) => (l.spec.hosts ?? []).includes(host));
  }

  /**
   * How long a change of a proxy host may take to reach the provider, and how often to look:
   * on the testbed every proxy host is a pool and policy on one Octavia load balancer, which
   * takes one change at a time (seconds each), and each look asks Octavia's API.
   */
  const serving = providerUnderTest() === 'openstack' ? { timeoutMs: 240_000, intervalMs: 1_000 } : { timeoutMs: 30_000, intervalMs: 20 };

  /** Whether the edge routes `host` to instance `id` now (the instance answers); under the fake provider and on the testbed, see providerServes. */
  async function routed(host: string, id: string, port?: number): Promise<boolean> {
    return realResources() ? (await viaEdge(host)).status === 200 : providerServes(host, id, port);
  }

  /** The edge routes `host` to instance `id`: the instance itself answers (under the fake provider and on the testbed, see providerServes). */
  async function expectRouted(host: string, id: string): Promise<void> {
    // A cloud's load balancer takes a change up in its own time; the fake's holds it once the worker asked.
    if (providerUnderTest() === 'openstack') return void (await waitFor(`the provider to serve ${host}`, () => providerServes(host, id), serving));
    if (!realResources()) return expect(await providerServes(host, id)).toBe(true);
    const res = await viaEdge(host);
    expect(res.status).toBe(200);
    expect(res.body.instance).toBe(id);
  }

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api', 'worker', 'edge']);
    edgePort = Number(stack.env.EDGE_HTTP_PORT);
    db = await testDataSource();
    owner = await createTenant(db);
    other = await createTenant(db);
    api = stack.http.with({ 'x-api-key': owner.apiKey });
    cloud = stack.http.with({ authorization: `Bearer ${owner.token}` });
    // `second` serves on 4000 too: a shell that starts the demo app on another port.
    const [a, b] = await Promise.all([
      api.post('/v1/instances', { name: 'web', dname: 'web-dns', ...DEMO_INSTANCE }),
      api.post('/v1/instances', { name: 'Second App!', ...DEMO_INSTANCE, port: '4000' }),
    ]);
    expect(a.status).toBe(202);
    web = await waitForInstance(api, a.body.id);
    second = await waitForInstance(api, b.body.id);
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  it('POST /v1/instances with dname serves <dname>.<suffix> on the instance port, and lists it in metadata', async () => {
    expect(web.metadata.domains).toBe('web-dns.localhost');
    await expectRouted('web-dns.localhost', web.id);
    // Host matching ignores case, port and a trailing dot.
    await expectRouted(`WEB-DNS.localhost.:${edgePort}`, web.id);
  });

  // The instance's answers (its 101, its echo, its 200 to an upload): a real instance process's only.
  itReal('carries an upgrade (WebSocket) through the edge to the instance and back', async () => {
    const socket = connect(edgePort, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'GET /live HTTP/1.1\r\nHost: web-dns.localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    let got = '';
    while (!got.includes('\r\n\r\n')) got += (await once(socket, 'data'))[0].toString();
    const [head, rest] = got.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    // Header names are case-insensitive; HAProxy sends them in lower case.
    expect(head).toMatch(new RegExp(`^x-instance: ${web.id}$`, 'im'));
    // RFC 6455's example key and its accept value.
    expect(head).toMatch(/^sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=$/im);
    socket.write('ping');
    let echoed = rest;
    while (echoed.length < 4) echoed += (await once(socket, 'data'))[0].toString();
    expect(echoed).toBe('ping');
    socket.destroy();
  });

  itReal('forwards an upload that asks for 100-continue (as curl does above 1 MB)', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 'x');
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: edgePort, method: 'POST', path: '/', headers: { host: 'web-dns.localhost', expect: '100-continue', 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('continue', () => req.end(body));
      req.on('error', reject);
    });
    expect(status).toBe(200);
  });

  it('without dname a name is generated from the instance name and id', async () => {
    expect(second.metadata.domains).toMatch(new RegExp(`^second-app-${second.id.slice(0, 8)}\\.localhost$`));
    await expectRouted(second.metadata.domains, second.id);
  });

  it('creates, reads, retargets and deletes a proxy host; traffic follows', async () => {
    const created = await cloud.post('/api/cloud/dns/create', { instanceId: web.id, forwardPort: 3000 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      domain: expect.stringMatching(/^[0-9a-f-]{36}\.localhost$/),
      instanceId: web.id,
      forwardPort: 3000,
      url: `http://${created.body.domain}:${edgePort}/`,
    });
    const host = created.body.domain;
    await waitFor('the edge to route the new host', () => routed(host, web.id), serving);
    await expectRouted(host, web.id);

    const listed = await stack.http.get('/api/cloud/dns/list');
    expect(listed.status).toBe(200);
    expect(listed.body.map((p: any) => p.id)).toContain(created.body.id);
    const got = await stack.http.get(`/api/cloud/dns/proxy-hosts/${created.body.id}`);
    expect(got.body).toEqual(created.body);
    const instanceNow = (await api.get(`/v1/instances/${web.id}`)).body;
    expect(instanceNow.metadata.domains.split(',')).toEqual(['web-dns.localhost', host]);

    // Nothing answers on 3001 of that instance: 502, in the error envelope (under the fake
    // provider and on the testbed nothing answers at all: there the listener's backend follows, see providerServes).
    const moved = await stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${created.body.id}`, { updateData: { forwardPort: 3001 } });
    expect(moved.status).toBe(200);
    expect(moved.body.forwardPort).toBe(3001);
    if (realResources()) {
      await waitFor('traffic to follow the new port', async () => (await viaEdge(host)).status === 502, { timeoutMs: 30_000, intervalMs: 20 });
      const bad = await viaEdge(host);
      expect(bad.body).toEqual({ error: { code: 'bad_gateway', message: expect.stringContaining(host) } });
    } else await waitFor('the listener to follow the new port', () => providerServes(host, web.id, 3001), serving);

    await stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${created.body.id}`, { updateData: { forwardPort: 3000 } });
    await waitFor('traffic to come back', () => routed(host, web.id), serving);

    const deleted = await stack.http.delete(`/api/cloud/dns/proxy-hosts/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Proxy host deleted successfully' });
    await waitFor('the host to be gone', () => gone(host), serving);
    if (providerUnderTest() !== 'openstack') expect((await viaEdge(host)).body.error.code).toBe('not_found');
    expect((await api.get(`/v1/instances/${web.id}`)).body.metadata.domains).toBe('web-dns.localhost');
    expect((await stack.http.get(`/api/cloud/dns/proxy-hosts/${created.body.id}`)).status).toBe(404);
  });

  it('a custom name under the suffix, and a bare label that gets it', async () => {
    const full = await cloud.post('/api/cloud/dns/create', { instanceId: web.id, forwardPort: 3000, domain: 'Shop.Example.localhost' });
    expect(full.status).toBe(201);
    expect(full.body.domain).toBe('shop.example.localhost');
    const label = await cloud.post('/api/cloud/dns/create', { instanceId: web.id, forwardPort: 3000, domain: 'blog' });
    expect(label.body.domain).toBe('blog.localhost');
    // The edge hears of it by NOTIFY, within milliseconds.
    await waitFor('the edge to route blog.localhost', () => routed('blog.localhost', web.id), serving);
    // Taken: 409, in any case.
    const taken = await cloud.post('/api/cloud/dns/create', { instanceId: second.id, forwardPort: 4000, domain: 'BLOG.localhost' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    const renamedOnto = await stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${full.body.id}`, { updateData: { domain: 'blog' } });
    expect(renamedOnto.status).toBe(409);
    // The instance's own dname is taken too.
    const instanceTaken = await api.post('/v1/instances', { name: 'dup', dname: 'web-dns', ...DEMO_INSTANCE });
    expect(instanceTaken.status).toBe(409);
  });

  it('update-dns merges metadata that GET /v1/instances then shows', async () => {
    const res = await cloud.post('/api/cloud/dns/update-dns', { instanceId: web.id, metadata: { team: 'blue', tier: 'web' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ instance_id: web.id, metadata: expect.objectContaining({ team: 'blue', tier: 'web', privateIp: web.metadata.privateIp }) });
    const again = await cloud.post('/api/cloud/dns/update-dns', { instanceId: web.id, metadata: { tier: 'api' } });
    expect(again.body.metadata).toMatchObject({ team: 'blue', tier: 'api' });
    const item = (await api.get('/v1/instances')).body.find((i: any) => i.id === web.id);
    expect(item.metadata).toMatchObject({ team: 'blue', tier: 'api', domains: expect.stringContaining('web-dns.localhost') });
  });

  describe('races', () => {
    it('proxy hosts created side by side for one instance are all listed in its metadata', async () => {
      const names = Array.from({ length: 8 }, (_, i) => `race-${i}-${randomUUID().slice(0, 8)}`);
      const created = await Promise.all(names.map((domain) => cloud.post('/api/cloud/dns/create', { instanceId: second.id, forwardPort: 4000, domain })));
      expect(created.map((r) => r.status)).toEqual(names.map(() => 201));
      const domains = (await api.get(`/v1/instances/${second.id}`)).body.metadata.domains.split(',');
      for (const name of names) expect(domains).toContain(`${name}.localhost`);
      for (const r of created) await stack.http.delete(`/api/cloud/dns/proxy-hosts/${r.body.id}`);
    });

    /**
     * Sends a request while a transaction holds the lock `lock` takes; once
     * the request waits for it, runs `meanwhile` in that transaction and
     * commits: the request then finds the world changed under it.
     */
    async function racing(lock: [string, unknown[]], send: () => Promise<{ status: number; body: any }>, meanwhile: [string, unknown[]]) {
      const tx = db.createQueryRunner();
      await tx.connect();
      await tx.startTransaction();
      try {
        await tx.query(...lock);
        const answer = send();
        await waitFor('the request to wait for the lock', async () => (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`))[0].n > 0, {
          timeoutMs: 30_000,
          intervalMs: 20,
        });
        await tx.query(...meanwhile);
        await tx.commitTransaction();
        return await answer;
      } finally {
        if (tx.isTransactionActive) await tx.rollbackTransaction();
        await tx.release();
      }
    }

    /** An instance row that holds an address, as a built one does (a proxy host may forward only to that). */
    const bareInstance = async () => (await saveBareInstance(db, { projectId: owner.projectId, userId: owner.userId })).id;

    it('an instance deleted while update-dns or a proxy host create waits for it: 404, not a 500', async () => {
      const lock = (id: string): [string, unknown[]] => [`SELECT 1 FROM instances WHERE id = $1 FOR UPDATE`, [id]];
      const remove = (id: string): [string, unknown[]] => [`DELETE FROM instances WHERE id = $1`, [id]];
      const a = await bareInstance();
      const meta = await racing(lock(a), () => cloud.post('/api/cloud/dns/update-dns', { instanceId: a, metadata: { k: 'v' } }), remove(a));
      expect([meta.status, meta.body.error?.message]).toEqual([404, `instance ${a} not found`]);
      const b = await bareInstance();
      const host = await racing(lock(b), () => cloud.post('/api/cloud/dns/create', { instanceId: b, forwardPort: 3000 }), remove(b));
      expect([host.status, host.body.error?.message]).toEqual([404, `instance ${b} not found`]);
    });

    it('a proxy host deleted while an update waits for it: 404, not a 500', async () => {
      const created = await cloud.post('/api/cloud/dns/create', { instanceId: second.id, forwardPort: 4000 });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const put = await racing(
        [`SELECT 1 FROM proxy_hosts WHERE id = $1 FOR UPDATE`, [id]],
        () => stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${id}`, { updateData: { forwardPort: 3000 } }),
        [`DELETE FROM proxy_hosts WHERE id = $1`, [id]],
      );
      expect([put.status, put.body.error?.message]).toEqual([404, `proxy host ${id} not found`]);
    });
  });

  describe('refusals', () => {
    it.each([
      ['create', '/api/cloud/dns/create'],
      ['update-dns', '/api/cloud/dns/update-dns'],
    ])('401 without a token: %s', async (_l, path) => {
      const res = await stack.http.post(path, { instanceId: web.id, forwardPort: 3000, metadata: {} });
      expect(res.status).toBe(401);
    });

    it("403 for another project's instance, nothing changed", async () => {
      const intruder = stack.http.with({ authorization: `Bearer ${other.token}` });
      const before = (await stack.http.get('/api/cloud/dns/list')).body.length;
      const created = await intruder.post('/api/cloud/dns/create', { instanceId: web.id, forwardPort: 3000, domain: 'steal' });
      expect(created.status).toBe(403);
      expect(created.body.error.code).toBe('forbidden');
      const meta = await intruder.post('/api/cloud/dns/update-dns', { instanceId: web.id, metadata: { owned: 'yes' } });
      expect(meta.status).toBe(403);
      expect((await stack.http.get('/api/cloud/dns/list')).body.length).toBe(before);
      expect((await api.get(`/v1/instances/${web.id}`)).body.metadata.owned).toBeUndefined();
    });

    it('404 for an instance that does not exist; a bad field is 400 before the instance is looked up', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await cloud.post('/api/cloud/dns/create', { instanceId: missing, forwardPort: 3000 })).status).toBe(404);
      expect((await cloud.post('/api/cloud/dns/update-dns', { instanceId: missing, metadata: { a: 'b' } })).status).toBe(404);
      const badDomain = await cloud.post('/api/cloud/dns/create', { instanceId: missing, forwardPort: 3000, domain: '../etc' });
      expect([badDomain.status, badDomain.body.error.message]).toEqual([400, expect.stringContaining('domain: must be a DNS name')]);
      const managed = await cloud.post('/api/cloud/dns/update-dns', { instanceId: missing, metadata: { privateIp: '1.2.3.4' } });
      expect([managed.status, managed.body.error.message]).toEqual([400, expect.stringContaining('metadata.privateIp: is managed')]);
    });

    const createCases: Array<[string, Record<string, unknown>, string]> = [
      ['missing instanceId', { instanceId: undefined }, 'instanceId: is required'],
      ['instanceId not a uuid', { instanceId: 'abc' }, 'instanceId: must be an instance id'],
      ['missing forwardPort', { forwardPort: undefined }, 'forwardPort: is required'],
      ['forwardPort zero', { forwardPort: 0 }, 'forwardPort: must not be less than 1'],
      ['forwardPort as string', { forwardPort: '3000' }, 'forwardPort: must be an integer'],
      ['domain outside the suffix', { domain: 'evil.example.com' }, 'domain: must be under .localhost'],
      ['domain with bad characters', { domain: 'a_b.localhost' }, 'domain: must be a DNS name'],
      ['domain not a string', { domain: 5 }, 'domain: must be a string'],
      ['unknown field', { ttl: 60 }, 'ttl: property ttl should not exist'],
    ];
    it.each(createCases)('400 on create: %s', async (_l, patch, message) => {
      const res = await cloud.post('/api/cloud/dns/create', JSON.stringify({ instanceId: web.id, forwardPort: 3000, ...patch }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(message);
    });

    const metaCases: Array<[string, unknown, string]> = [
      ['missing', undefined, 'metadata: is required'],
      ['an array', ['a'], 'metadata: must be an object'],
      ['a number value', { a: 1 }, 'metadata: must be an object of at most 32 string values'],
      ['a nested object', { a: { b: 'c' } }, 'metadata: must be an object of at most 32 string values'],
      ['a managed key', { privateIp: '1.2.3.4' }, 'metadata.privateIp: is managed by the platform'],
      ['the domains key', { domains: 'x.localhost' }, 'metadata.domains: is managed by the platform'],
    ];
    it.each(metaCases)('400 on update-dns: metadata %s', async (_l, metadata, message) => {
      const res = await cloud.post('/api/cloud/dns/update-dns', JSON.stringify({ instanceId: web.id, metadata }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(message);
    });

    it('400 on update with unknown or no fields, or a bad id; 404 for an unknown id', async () => {
      const [host] = (await stack.http.get('/api/cloud/dns/list')).body;
      const put = (id: string, body: unknown) => stack.http.request('PUT', `/api/cloud/dns/proxy-hosts/${id}`, body);
      expect((await put(host.id, { updateData: { instanceId: second.id } })).body.error.message).toContain('updateData.instanceId: property instanceId should not exist');
      expect((await put(host.id, { updateData: {} })).status).toBe(400);
      expect((await put(host.id, { forwardPort: 3000 })).status).toBe(400);
      expect((await put(host.id, { updateData: { forwardPort: 'x' } })).body.error.message).toContain('updateData.forwardPort: must be an integer');
      expect((await put('nope', { updateData: { forwardPort: 3000 } })).status).toBe(400);
      expect((await put('00000000-0000-4000-8000-000000000000', { updateData: { forwardPort: 3000 } })).status).toBe(404);
      expect((await stack.http.get('/api/cloud/dns/proxy-hosts/nope')).status).toBe(400);
      expect((await stack.http.delete('/api/cloud/dns/proxy-hosts/nope')).status).toBe(400);
      expect((await stack.http.delete('/api/cloud/dns/proxy-hosts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });

    it("public endpoints called with a token act only on the caller's project; without one, on any (SPEC.md)", async () => {
      const created = await cloud.post('/api/cloud/dns/create', { instanceId: web.id, forwardPort: 3000 });
      expect(created.status).toBe(201);
      const path = `/api/cloud/dns/proxy-hosts/${created.body.id}`;
      const intruder = stack.http.with({ authorization: `Bearer ${other.token}` });
      expect((await intruder.get('/api/cloud/dns/list')).body.map((p: any) => p.id)).not.toContain(created.body.id);
      expect((await intruder.get(path)).status).toBe(404);
      expect((await intruder.request('PUT', path, { updateData: { forwardPort: 4000 } })).status).toBe(404);
      expect((await intruder.delete(path)).status).toBe(404);
      // A token that does not verify is refused rather than ignored.
      expect((await stack.http.get(path, { authorization: 'Bearer nope' })).status).toBe(401);
      expect((await cloud.get('/api/cloud/dns/list')).body.map((p: any) => p.id)).toContain(created.body.id);
      expect((await stack.http.get(path)).body).toEqual(created.body);
      expect((await stack.http.delete(path)).status).toBe(200);
    });

    itWithEdge('the edge answers 404 for a host it does not know, in the envelope', async () => {
      const res = await viaEdge('nobody.localhost');
      expect(res).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'no proxy host nobody.localhost' } } });
    });
  });

  it('keeps serving routes and hosts with the api and worker stopped', async () => {
    const port = Number(stack.env.GATEWAY_PORT_RANGE.split('-')[0]) + 3;
    const route = await cloud.post('/api/cloud/gateway/create', { targetIp: web.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
    expect(route.status).toBe(200);
    await stack.stopService('api');
    await stack.stopService('worker', 'SIGKILL');
    // The route carries bytes to the instance: a real instance process's only.
    await whenReal(async () => {
      const direct = await request(`http://127.0.0.1:${port}/`);
      expect(JSON.parse(await direct.body.text()).instance).toBe(web.id);
    });
    await expectRouted('web-dns.localhost', web.id);
    await stack.startService('api');
    await stack.startService('worker');
    expect((await stack.http.delete(`/api/cloud/gateway/routes/${port}`)).status).toBe(200);
  });

  it('deleting an instance removes its proxy hosts from the edge', async () => {
    expect((await api.delete(`/v1/instances/${second.id}`)).status).toBe(204);
    await waitFor('the host to leave the edge', () => gone(second.metadata.domains), serving);
    // The edge drops it once the instance gives up its address, a step before the row (and its proxy hosts) go.
    // (On OpenStack the instance's delete waits for Octavia and Nova first.)
    await waitFor('its proxy hosts to leave the list', async () => !(await stack.http.get('/api/cloud/dns/list')).body.some((p: any) => p.instanceId === second.id), {
      timeoutMs: 180_000,
    });
  });
});
