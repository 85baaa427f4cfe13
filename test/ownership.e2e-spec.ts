import { DB_PLACEMENT, DEMO_INSTANCE, HttpClient, saveBareInstance, useSuite, waitFor, waitForDatabase, waitForDatabaseGone, waitForInstance } from '@stratus/testing';
import { AddressInfo, connect, createServer, Server } from 'node:net';

/** Whether a TCP connection to 127.0.0.1:port reaches the instance behind a route (demo-web names itself). */
function routeServes(port: number, instanceId: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.setTimeout(5_000, () => socket.destroy());
    socket.once('connect', () => socket.write('GET / HTTP/1.0\r\nHost: x\r\n\r\n'));
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => resolve(text.includes(instanceId)));
    socket.on('error', () => resolve(false));
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/*
 * Two projects, A (the suite's owner) and B (`other`), on a platform surface
 * that requires a token everywhere (PUBLIC_ENDPOINTS_REQUIRE_AUTH=true). B's
 * token must neither see nor change anything of A's, and must not point the
 * gateway or a proxy host at anything that is not B's own.
 */
describe('ownership on the platform surface (PUBLIC_ENDPOINTS_REQUIRE_AUTH=true)', () => {
  const s = useSuite({ PUBLIC_ENDPOINTS_REQUIRE_AUTH: 'true' }, ['api', 'worker', 'edge']);
  let a: HttpClient;
  let b: HttpClient;
  let pool: { network: string; broadcast: string; prefix: string };
  let routePort: number;
  let instance: any;
  let volume: any;
  let proxyHost: any;
  let cacheAddress: string;
  let cacheId: number;

  const snapshot = async () => ({
    volume: (await a.get('/api/cloud/volumes/list')).body.find((v: any) => v.id === volume.id),
    proxyHost: (await a.get(`/api/cloud/dns/proxy-hosts/${proxyHost.id}`)).body,
    ports: (await a.get('/api/cloud/gateway/used-ports')).body.ports,
  });

  beforeAll(async () => {
    a = s.stack.http.with({ authorization: `Bearer ${s.owner.token}` });
    b = s.stack.http.with({ authorization: `Bearer ${s.other.token}` });
    const [net] = s.stack.env.LOCAL_ADDRESS_POOL.split('/');
    const prefix = net.split('.').slice(0, 2).join('.');
    pool = { network: `${prefix}.0.0`, broadcast: `${prefix}.255.255`, prefix };
    routePort = Number(s.stack.env.GATEWAY_PORT_RANGE.split('-')[0]) + 40;

    const created = await s.api.post('/v1/instances', { name: 'a-web', ...DEMO_INSTANCE });
    expect(created.status).toBe(202);
    const cache = await s.api.post('/v1/cache', { name: 'a-cache', ...DB_PLACEMENT });
    expect(cache.status).toBe(202);
    cacheId = cache.body.id;
    instance = await waitForInstance(s.api, created.body.id);
    // The worker has the network assign it.
    cacheAddress = (await waitForDatabase(s.api, 'cache', cacheId)).floating_ip;

    volume = (await a.post('/api/cloud/volumes/create', { name: 'a-data', size: 1 })).body;
    await waitFor("A's volume to be available", async () => (await a.get('/api/cloud/volumes/list')).body.find((v: any) => v.id === volume.id && v.status === 'available'), {
      timeoutMs: 60_000,
    });
    expect((await a.post('/api/cloud/volumes/attach', { volume_id: volume.id, instance_id: instance.id })).status).toBe(200);
    volume = await waitFor("A's volume to be attached", async () => (await a.get('/api/cloud/volumes/list')).body.find((v: any) => v.id === volume.id && v.status === 'in-use'), {
      timeoutMs: 60_000,
    });

    const route = await a.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: routePort });
    expect(route.status).toBe(200);
    const host = await a.post('/api/cloud/dns/create', { instanceId: instance.id, forwardPort: 3000 });
    expect(host.status).toBe(201);
    proxyHost = host.body;
  });

  describe("B's token on A's volume, route and proxy host: 404 as for a missing one, nothing changed", () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot();
    });
    afterAll(async () => {
      expect(await snapshot()).toEqual(before);
      expect(await routeServes(routePort, instance.id)).toBe(true);
    });

    const notFound = (res: { status: number; body: any }) => [res.status, res.body?.error?.code];

    it('volumes: list leaves it out; delete, attach and detach answer 404', async () => {
      expect((await b.get('/api/cloud/volumes/list')).body.map((v: any) => v.id)).not.toContain(volume.id);
      const attachment = volume.attachments[0].attachment_id;
      expect(notFound(await b.delete(`/api/cloud/volumes/delete/${volume.id}`))).toEqual([404, 'not_found']);
      expect(notFound(await b.post('/api/cloud/volumes/detach', { volume_id: volume.id, attachment_id: attachment }))).toEqual([404, 'not_found']);
      expect(notFound(await b.post('/api/cloud/volumes/attach', { volume_id: volume.id, instance_id: instance.id }))).toEqual([404, 'not_found']);
    });

    it("routes: delete answers 404; used-ports and health show only B's own", async () => {
      expect(notFound(await b.delete(`/api/cloud/gateway/routes/${routePort}`))).toEqual([404, 'not_found']);
      expect((await b.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(routePort);
      const health = (await b.get('/api/cloud/gateway/health')).body;
      expect(health.listeners.expected).toBe(0);
      expect((await a.get('/api/cloud/gateway/used-ports')).body.ports).toContain(routePort);
    });

    it('proxy hosts: list leaves it out; get, update and delete answer 404', async () => {
      expect((await b.get('/api/cloud/dns/list')).body.map((p: any) => p.id)).not.toContain(proxyHost.id);
      const path = `/api/cloud/dns/proxy-hosts/${proxyHost.id}`;
      expect(notFound(await b.get(path))).toEqual([404, 'not_found']);
      expect(notFound(await b.request('PUT', path, { updateData: { forwardPort: 4000 } }))).toEqual([404, 'not_found']);
      expect(notFound(await b.request('PUT', path, { updateData: { domain: 'stolen' } }))).toEqual([404, 'not_found']);
      expect(notFound(await b.delete(path))).toEqual([404, 'not_found']);
      expect((await a.get('/api/cloud/dns/list')).body.map((p: any) => p.id)).toContain(proxyHost.id);
    });

    it('without a token every endpoint SPEC.md marks public answers 401', async () => {
      const path = `/api/cloud/dns/proxy-hosts/${proxyHost.id}`;
      for (const res of [
        await s.stack.http.delete(`/api/cloud/gateway/routes/${routePort}`),
        await s.stack.http.get('/api/cloud/dns/list'),
        await s.stack.http.get(path),
        await s.stack.http.request('PUT', path, { updateData: { forwardPort: 4000 } }),
        await s.stack.http.delete(path),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([401, 'unauthorized']);
      }
    });
  });

  describe("targets that are not the caller's own: 400, nothing created", () => {
    const port = () => routePort + 1;
    const refusedRoute = async (client: HttpClient, targetIp: string, targetPort: number, message: string | RegExp) => {
      const res = await client.post('/api/cloud/gateway/create', { targetIp, targetPort, protocol: 'tcp', port: port() });
      expect([targetIp, targetPort, res.status]).toEqual([targetIp, targetPort, 400]);
      expect(res.body.error.message).toMatch(message);
      expect((await s.db.query('SELECT 1 FROM gateway_routes WHERE port = $1', [port()])).length).toBe(0);
    };
    const notOurs = /^targetIp: .* is not the address of an instance or database of your project$/;

    it("a route from B to A's instance or A's database", async () => {
      await refusedRoute(b, instance.metadata.privateIp, 3000, notOurs);
      await refusedRoute(b, cacheAddress, 6379, notOurs);
    });

    it("a route to the pool's network and broadcast addresses", async () => {
      await refusedRoute(b, pool.network, 3000, /network or broadcast address/);
      await refusedRoute(b, pool.broadcast, 3000, /network or broadcast address/);
      await refusedRoute(a, pool.broadcast, 3000, /network or broadcast address/);
    });

    it('a route to an address of the pool no resource holds', async () => {
      const held = new Set(
        (await s.db.query('SELECT host(address) AS a FROM instances WHERE address IS NOT NULL UNION SELECT host(address) FROM managed_databases WHERE address IS NOT NULL')).map(
          (r: any) => r.a,
        ),
      );
      const unheld = [`${pool.prefix}.200.200`, `${pool.prefix}.0.250`].filter((x) => !held.has(x));
      expect(unheld.length).toBeGreaterThan(0);
      for (const address of unheld) {
        await refusedRoute(a, address, 3000, notOurs);
        await refusedRoute(b, address, 3000, notOurs);
      }
    });

    it('a route to the address of an instance that is being deleted', async () => {
      // As the worker leaves it between taking the server down and giving the address back.
      const leaving = await saveBareInstance(s.db, { projectId: s.owner.projectId, userId: s.owner.userId, status: 'DELETING', address: `${pool.prefix}.200.201` });
      try {
        await refusedRoute(a, `${pool.prefix}.200.201`, 3000, notOurs);
      } finally {
        await s.db.query('DELETE FROM instances WHERE id = $1', [leaving.id]);
      }
    });

    it("A's own database is a target A may route to", async () => {
      const own = await a.post('/api/cloud/gateway/create', { targetIp: cacheAddress, targetPort: 6379, protocol: 'tcp', port: port() });
      expect(own.status).toBe(200);
      expect((await a.delete(`/api/cloud/gateway/routes/${port()}`)).status).toBe(200);
    });

    it("a proxy host from B to A's instance (403, as SPEC.md has for DNS create) or to an instance that holds no address (400)", async () => {
      const before = (await s.db.query('SELECT count(*)::int AS n FROM proxy_hosts'))[0].n;
      const foreign = await b.post('/api/cloud/dns/create', { instanceId: instance.id, forwardPort: 3000 });
      expect([foreign.status, foreign.body.error.code]).toEqual([403, 'forbidden']);
      // As the api commits a new instance: the worker has not had the network assign its address yet.
      const bare = await saveBareInstance(s.db, { projectId: s.other.projectId, userId: s.other.userId, status: 'BUILD', address: null });
      const unassigned = await b.post('/api/cloud/dns/create', { instanceId: bare.id, forwardPort: 3000 });
      expect([unassigned.status, unassigned.body.error.message]).toEqual([
        400,
        `instanceId: instance ${bare.id} has no address yet (it is being built); try again once metadata.privateIp is set`,
      ]);
      const leaving = await saveBareInstance(s.db, { projectId: s.other.projectId, userId: s.other.userId, status: 'DELETING' });
      const released = await b.post('/api/cloud/dns/create', { instanceId: leaving.id, forwardPort: 3000 });
      expect([released.status, released.body.error.message]).toEqual([400, `instanceId: instance ${leaving.id} holds no address now (it is being deleted)`]);
      // Before the worker's sweep builds or tears down what it takes for real rows.
      await s.db.query('DELETE FROM instances WHERE id = ANY($1)', [[bare.id, leaving.id]]);
      expect((await s.db.query('SELECT count(*)::int AS n FROM proxy_hosts'))[0].n).toBe(before);
    });

    describe('a host service listening on the wildcard address', () => {
      let service: Server;
      let servicePort: number;
      beforeAll(async () => {
        service = createServer((socket) => socket.end('host service\n'));
        await new Promise<void>((resolve) => service.listen(0, '0.0.0.0', resolve));
        servicePort = (service.address() as AddressInfo).port;
      });
      afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())));

      it("is not a route target, even on the caller's own instance address", async () => {
        await refusedRoute(a, instance.metadata.privateIp, servicePort, /^targetPort: .* would reach a service of the host listening on all addresses/);
      });

      it('is not a proxy host forward, on create or update', async () => {
        const created = await a.post('/api/cloud/dns/create', { instanceId: instance.id, forwardPort: servicePort });
        expect(created.status).toBe(400);
        expect(created.body.error.message).toMatch(/^forwardPort: .* would reach a service of the host listening on all addresses/);
        const moved = await a.request('PUT', `/api/cloud/dns/proxy-hosts/${proxyHost.id}`, { updateData: { forwardPort: servicePort } });
        expect(moved.status).toBe(400);
        expect(moved.body.error.message).toMatch(/^updateData\.forwardPort: /);
        expect((await a.get(`/api/cloud/dns/proxy-hosts/${proxyHost.id}`)).body.forwardPort).toBe(3000);
      });
    });
  });

  // Last: it deletes A's cache.
  it('a route goes with the resource it reaches: its address may be leased next to another project', async () => {
    const port = routePort + 2;
    const route = await a.post('/api/cloud/gateway/create', { targetIp: cacheAddress, targetPort: 6379, protocol: 'tcp', port });
    expect(route.status).toBe(200);
    expect((await s.api.delete(`/v1/cache/${cacheId}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'cache', cacheId);
    expect((await s.db.query('SELECT 1 FROM gateway_routes WHERE port = $1', [port])).length).toBe(0);
    // Its listener went before the address was released, not after.
    expect((await s.db.query('SELECT 1 FROM load_balancers WHERE id = $1', [`route-${route.body.id}`])).length).toBe(0);
    expect((await a.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(port);
    // The edge stops listening at its next resync at the latest.
    await waitFor('the edge to close the port', () => refused(port), { timeoutMs: 60_000 });
  });
  it("a proxy host's name goes with its instance's address: its listener is gone before the address may be given to another project", async () => {
    const created = await s.api.post('/v1/instances', { name: 'a-leaving', ...DEMO_INSTANCE });
    expect(created.status).toBe(202);
    const leaving = await waitForInstance(s.api, created.body.id);
    const [host] = await s.db.query('SELECT id FROM proxy_hosts WHERE instance_id = $1', [leaving.id]);
    const listener = `host-${host.id}`;
    await waitFor('its listener', async () => (await s.db.query('SELECT 1 FROM load_balancers WHERE id = $1', [listener])).length === 1, { timeoutMs: 60_000, intervalMs: 20 });
    expect((await s.api.delete(`/v1/instances/${leaving.id}`)).status).toBe(204);
    await waitFor('the instance to be gone', async () => (await s.api.get(`/v1/instances/${leaving.id}`)).status === 404, { timeoutMs: 60_000, intervalMs: 20 });
    // Its listener went before the address was released, not after (by its delete job, with the outbox relay).
    expect(await s.db.query('SELECT 1 FROM load_balancers WHERE id = $1', [listener])).toEqual([]);
  });
});
