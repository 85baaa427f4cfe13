import { EDGE_CHANNEL } from '@stratus/core';
import { MARK, OpenStackLoadBalancerDriver } from '@stratus/providers';
import {
  childPids,
  createTenant,
  DEMO_INSTANCE,
  establishedByProcess,
  HttpClient,
  itReal,
  itWithEdge,
  providerListener,
  providerUnderTest,
  realResources,
  signTestToken,
  Tenant,
  TestStack,
  testbedClient,
  testDataSource,
  waitFor,
  waitForInstance,
} from '@stratus/testing';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { DataSource } from 'typeorm';

/** One HTTP/1.0 exchange over a raw TCP (or TLS) connection; resolves with the response text. */
function exchange(port: number, opts: { tls?: boolean; host?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = opts.tls ? tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false, servername: 'gw.stratus.test' }) : connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('timeout')));
    socket.once(opts.tls ? 'secureConnect' : 'connect', () => socket.write(`GET / HTTP/1.0\r\nHost: ${opts.host ?? 'x'}\r\n\r\n`));
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('gateway TCP routes through the edge', () => {
  let stack: TestStack;
  let db: DataSource;
  let owner: Tenant;
  let api: HttpClient;
  let cloud: HttpClient;
  let instance: { id: string; metadata: Record<string, string> };
  let range: { from: number; to: number };

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api', 'worker', 'edge']);
    db = await testDataSource();
    owner = await createTenant(db);
    api = stack.http.with({ 'x-api-key': owner.apiKey });
    cloud = stack.http.with({ authorization: `Bearer ${owner.token}` });
    const [from, to] = stack.env.GATEWAY_PORT_RANGE.split('-').map(Number);
    range = { from, to };
    const created = await api.post('/v1/instances', { name: 'gw-target', ...DEMO_INSTANCE });
    instance = await waitForInstance(api, created.body.id);
  });

  /** The folders selfSigned made, removed after the suite. */
  const certificateDirs: string[] = [];

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
    for (const dir of certificateDirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Under the fake provider and on the testbed nothing answers (and under
   * the fake one the edge is not the load balancer): what is left to see of
   * a route is the provider's listener for it (the fake's, Octavia's), on
   * its port, terminating TLS or not, with the target as its one backend.
   */
  async function providerServes(route: { id: string; port: number }, tls = false): Promise<boolean> {
    const listener = await providerListener(stack.env.DATA_DIR, `route-${route.id}`);
    return (
      !!listener &&
      listener.spec.port === route.port &&
      listener.spec.address === (stack.env.GATEWAY_HOST || '127.0.0.1') &&
      !!listener.spec.tls === tls &&
      listener.backends.length === 1 &&
      listener.backends[0].address === instance.metadata.privateIp &&
      listener.backends[0].port === 3000 &&
      listener.backends[0].state === 'active'
    );
  }

  it('routes a port to the instance, lists it as used, and closes it on delete', async () => {
    const free = await cloud.get('/api/cloud/gateway/available-port');
    expect(free.status).toBe(200);
    expect(free.body.port).toBeGreaterThanOrEqual(range.from);
    expect(free.body.port).toBeLessThanOrEqual(range.to);
    const port = free.body.port;

    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ port, protocol: 'tcp', targetIp: instance.metadata.privateIp, targetPort: 3000, status: 'active', certificate_id: null });

    // 200 means bound: traffic flows at once.
    if (realResources()) {
      const reply = await exchange(port);
      expect(reply).toMatch(/^HTTP\/1\.[01] 200/);
      expect(reply).toContain(instance.id);
    } else expect(await providerServes(created.body)).toBe(true);

    const used = await cloud.get('/api/cloud/gateway/used-ports');
    expect(used.body.ports).toContain(port);
    const health = await cloud.get('/api/cloud/gateway/health');
    expect(health.body).toMatchObject({ status: 'ok', listeners: { missing: [] }, port_range: { ...range, held: true, taken: [] } });
    expect(health.body.listeners.bound).toBe(health.body.listeners.expected);

    expect((await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port })).status).toBe(409);
    const again = await cloud.get('/api/cloud/gateway/available-port');
    expect(again.body.port).not.toBe(port);

    // Public, as SPEC.md says: no token.
    const deleted = await stack.http.delete(`/api/cloud/gateway/routes/${port}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toEqual(expect.stringContaining('deleted'));
    // (On OpenStack, until Octavia let the listener's pool go: changes of its load balancer take their turn.)
    await waitFor('the listener to close', async () => (realResources() ? refused(port) : !(await providerListener(stack.env.DATA_DIR, `route-${created.body.id}`))), {
      timeoutMs: 180_000,
    });
    expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(port);
    expect((await stack.http.delete(`/api/cloud/gateway/routes/${port}`)).status).toBe(404);
  });

  /** A self-signed certificate for gw.stratus.test: its folder, with cert.pem and key.pem. */
  function selfSigned(bits = 2048): string {
    const dir = mkdtempSync(join(tmpdir(), 'stratus-cert-'));
    certificateDirs.push(dir);
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', `rsa:${bits}`, '-nodes', '-days', '2', '-subj', '/CN=gw.stratus.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'pipe' },
    );
    return dir;
  }

  /** A self-signed certificate loaded with the CLI; the CLI's output and the certificate. */
  function addCertificate(dir = selfSigned()): { out: string; cert: { id: number; subject: string } } {
    const out = stack.cli('certificate:add', '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem'));
    return { out, cert: JSON.parse(out.trim().split('\n').pop()!) };
  }

  it('the CLI refuses a certificate HAProxy could not serve, and stores no key that came in the certificate file', async () => {
    const weak = selfSigned(1024);
    expect(() => stack.cli('certificate:add', '--cert', join(weak, 'cert.pem'), '--key', join(weak, 'key.pem'))).toThrow(/the RSA key has 1024 bits; at least 2048 are needed/);

    const bundled = selfSigned();
    const key = readFileSync(join(bundled, 'key.pem'), 'utf8');
    writeFileSync(join(bundled, 'cert.pem'), `${readFileSync(join(bundled, 'cert.pem'), 'utf8')}\n${key}`);
    const { cert } = addCertificate(bundled);
    const [row] = await db.query('SELECT cert_pem FROM certificates WHERE id = $1', [cert.id]);
    expect(row.cert_pem).toMatch(/^-----BEGIN CERTIFICATE-----[^]*-----END CERTIFICATE-----$/);
    expect(row.cert_pem).not.toContain('PRIVATE KEY');
  });

  it('terminates TLS with a certificate loaded by the CLI', async () => {
    const { out, cert } = addCertificate();
    expect(cert).toMatchObject({ id: expect.any(Number), subject: expect.stringContaining('gw.stratus.test') });
    expect(out).not.toContain('PRIVATE KEY');
    // Only the encrypted key is stored.
    const [row] = await db.query('SELECT key_encrypted FROM certificates WHERE id = $1', [cert.id]);
    expect(row.key_encrypted).toMatch(/^v1:/);
    expect(row.key_encrypted).not.toContain('PRIVATE KEY');

    const port = range.from + 7;
    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port, certificate_id: cert.id });
    if (providerUnderTest() === 'openstack') {
      // Octavia terminates TLS only with certificates in Barbican, where the provider keeps none: refused before anything is made.
      expect(created.status).toBe(400);
      expect(created.body.error.message).toContain("certificate_id: the openstack provider's load balancers do not terminate TLS");
      expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(port);
      expect(stack.cli('certificate:remove', String(cert.id))).toContain(`removed certificate ${cert.id}`);
      return;
    }
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ certificate_id: cert.id, tls: true });
    if (realResources()) {
      const reply = await exchange(port, { tls: true });
      expect(reply).toMatch(/^HTTP\/1\.[01] 200/);
      expect(reply).toContain(instance.id);
    } else expect(await providerServes(created.body, true)).toBe(true);
    // In use: the CLI (and the database under it) refuses to remove it.
    expect(() => stack.cli('certificate:remove', String(cert.id))).toThrow(new RegExp(`certificate ${cert.id} is used by the routes on port\\(s\\) ${port}`));
    await stack.http.delete(`/api/cloud/gateway/routes/${port}`);
    expect(stack.cli('certificate:remove', String(cert.id))).toContain(`removed certificate ${cert.id}`);
    expect(stack.cli('certificate:list')).not.toMatch(new RegExp(`^${cert.id}\\s`, 'm'));

    const unknown = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port, certificate_id: 999999 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('certificate_id');
  });

  // Replies from the instance on every connection: a real instance process's only.
  itReal.each([
    ['plain', false],
    ['TLS', true],
  ])("serves a burst of %s connections from their first byte, carried by HAProxy, not by the edge's Node process", async (_label, tls) => {
    const port = range.from + (tls ? 13 : 12);
    const certificate_id = tls ? addCertificate().cert.id : undefined;
    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port, certificate_id });
    expect(created.status).toBe(200);
    // Sixteen keep-alive connections, each sending its request (or TLS hello) the moment it is up.
    const clients = await Promise.all(
      Array.from({ length: 16 }, () => {
        const socket = tls ? tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false, servername: 'gw.stratus.test' }) : connect({ port, host: '127.0.0.1' });
        socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')));
        return new Promise<{ socket: Socket; reply: string }>((resolve, reject) => {
          let reply = '';
          socket.once(tls ? 'secureConnect' : 'connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
          socket.on('data', (d) => {
            reply += d;
            if (reply.includes(instance.id)) resolve({ socket, reply });
          });
          socket.once('error', reject);
        });
      }),
    );
    try {
      for (const { reply } of clients) expect(reply).toMatch(/^HTTP\/1\.1 200/);
      const edge = stack.process('edge')!.pid!;
      const haproxies = childPids(edge, 'haproxy');
      // The gateway's and the proxy hosts', and one for clusters' balancers while a cluster of another suite still exists.
      expect(haproxies.length).toBeGreaterThanOrEqual(2);
      expect([...establishedByProcess(port, haproxies).values()].reduce((a, b) => a + b, 0)).toBe(16);
      expect(establishedByProcess(port, [edge]).get(edge)).toBe(0);
    } finally {
      for (const { socket } of clients) socket.destroy();
      await stack.http.delete(`/api/cloud/gateway/routes/${port}`);
    }
  });

  // The edge's HAProxy finding the port taken: under the fake provider the edge is not the load balancer.
  itReal('answers 409 when the port is held by something else on the gateway host, and leaves no route', async () => {
    const port = range.from + 11;
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, stack.env.GATEWAY_HOST ?? '127.0.0.1', r));
    try {
      const res = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('cannot be bound');
      expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(port);
    } finally {
      squatter.close();
    }
  });

  // The edge's own table stands in for drift a lost job leaves: under the fake provider the worker's memory holds the listeners.
  itReal("the reconciler puts back a route's listener that went, and deletes one whose route went", async () => {
    const port = range.from + 15;
    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
    expect(created.status).toBe(200);
    const serves = async () => (await exchange(port).catch(() => '')).includes(instance.id);
    expect(await serves()).toBe(true);

    // Its listener gone behind the worker's back (as if a job had lost it): the port closes, then serves again.
    const listener = `route-${created.body.id}`;
    const listed = async () => (await db.query(`SELECT 1 FROM load_balancers WHERE id = $1`, [listener])).length > 0;
    await db.query(`DELETE FROM load_balancers WHERE id = $1`, [listener]);
    await db.query(`SELECT pg_notify($1, 'balancers')`, [EDGE_CHANNEL]);
    // On a loaded machine the next sweep (every RECONCILE_INTERVAL_MS) may make the listener again before the edge has let the port go.
    await waitFor('the listener to close, or the reconciler to have made it again', async () => (await refused(port)) || (await listed()), {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    await waitFor('the reconciler to put the listener back', async () => (await listed()) && (await serves()), { timeoutMs: 60_000, intervalMs: 200 });

    // The route gone without its delete job (the trigger's outbox row dropped, as a Redis wiped after the enqueue would):
    // the listener of no route is deleted.
    await db.transaction(async (m) => {
      await m.query(`DELETE FROM gateway_routes WHERE id = $1`, [created.body.id]);
      await m.query(`DELETE FROM outbox WHERE job_id = $1`, [`route-delete-${created.body.id}-g1`]);
    });
    await waitFor('the reconciler to delete the listener', () => refused(port), { timeoutMs: 60_000, intervalMs: 200 });
    expect(await db.query(`SELECT 1 FROM load_balancers WHERE id = $1`, [`route-${created.body.id}`])).toEqual([]);
  });

  // On the testbed, Octavia's own API stands in for drift a lost job leaves: the listener deleted in the cloud behind the worker's back.
  (providerUnderTest() === 'openstack' ? it : it.skip)("the reconciler puts back a route's listener deleted in the cloud, and deletes one whose route went", async () => {
    const port = range.from + 16;
    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
    expect(created.status).toBe(200);
    const id = `route-${created.body.id}`;
    /** The Octavia pools of the route's listener that are not on their way out. */
    const pools = async () => {
      const { pools } = await testbedClient().get<{ pools: Array<{ id: string; provisioning_status: string }> }>('load-balancer', '/lbaas/pools', {
        query: { name: MARK.name(id) },
      });
      return pools.filter((p) => !['DELETED', 'PENDING_DELETE'].includes(p.provisioning_status)).map((p) => p.id);
    };
    const [before] = await pools();
    await new OpenStackLoadBalancerDriver(testbedClient()).deleteListener(id);
    // The reconciler may start making it again at once (it sweeps every 2 s, and takes no turn with this driver): what
    // the delete is seen by is its pool gone; back, it is served by another.
    expect(await pools()).not.toContain(before);
    await waitFor('the reconciler to put the listener back', async () => (await providerServes(created.body)) && !(await pools()).includes(before), {
      timeoutMs: 180_000,
      intervalMs: 1_000,
    });

    // The route gone without its delete job (as in the test above): the listener of no route is deleted.
    await db.transaction(async (m) => {
      await m.query(`DELETE FROM gateway_routes WHERE id = $1`, [created.body.id]);
      await m.query(`DELETE FROM outbox WHERE job_id = $1`, [`route-delete-${created.body.id}-g1`]);
    });
    await waitFor('the reconciler to delete the listener', async () => !(await providerListener(stack.env.DATA_DIR, id)), { timeoutMs: 180_000, intervalMs: 1_000 });
  });

  describe('refusals', () => {
    const valid = () => ({ targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: range.from + 20 });

    it.each([
      ['available-port', 'get', '/api/cloud/gateway/available-port'],
      ['used-ports', 'get', '/api/cloud/gateway/used-ports'],
      ['health', 'get', '/api/cloud/gateway/health'],
      ['create', 'post', '/api/cloud/gateway/create'],
    ] as const)('401 without a token: %s', async (_l, method, path) => {
      const res = method === 'get' ? await stack.http.get(path) : await stack.http.post(path, valid());
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('401 with a forged token', async () => {
      const res = await stack.http.post('/api/cloud/gateway/create', valid(), { authorization: `Bearer ${owner.token.slice(0, -3)}abc` });
      expect(res.status).toBe(401);
    });

    it('403 with a token that names no project', async () => {
      const res = await stack.http.get('/api/cloud/gateway/used-ports', { authorization: `Bearer ${signTestToken({ sub: 'x' })}` });
      expect(res.status).toBe(403);
    });

    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['udp', { protocol: 'udp' }, 'protocol: only tcp is supported'],
      ['http', { protocol: 'http' }, 'protocol: only tcp is supported'],
      ['missing protocol', { protocol: undefined }, 'protocol: is required'],
      ['missing targetIp', { targetIp: undefined }, 'targetIp: is required'],
      ['missing port', { port: undefined }, 'port: is required'],
      ['port as string', { port: '25020' }, 'port: must be an integer'],
      ['targetPort zero', { targetPort: 0 }, 'targetPort: must not be less than 1'],
      ['targetPort too high', { targetPort: 70000 }, 'targetPort: must not be greater than 65535'],
      ['port below the range', { port: 1 }, 'port: must be in the gateway range'],
      ['port above the range', { port: 65535 }, 'port: must be in the gateway range'],
      ['certificate_id not a number', { certificate_id: 'abc' }, 'certificate_id: must be an integer'],
      ['unknown field', { weight: 3 }, 'weight: property weight should not exist'],
    ];
    it.each(cases)('400 for %s', async (_l, patch, message) => {
      const res = await cloud.post('/api/cloud/gateway/create', JSON.stringify({ ...valid(), ...patch }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(message);
    });

    const forbidden = [
      '127.0.0.1',
      '127.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '017700000001',
      '127.000.000.001',
      '0x7f.0.0.1',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      '169.254.169.254',
      '0xa9fea9fe',
      '2852039166',
      '0251.0376.0251.0376',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      'fd00:ec2::254',
      '100.100.100.200',
      'fe80::1',
      'fe80::1%25lo',
      '0.0.0.0',
      '::',
      '255.255.255.255',
      '224.0.0.1',
      '64:ff9b::7f00:1',
      'localhost',
      'metadata.google.internal',
      '[::1]',
      '10.0.0.1',
      '8.8.8.8',
    ];
    it(`400 for ${forbidden.length} forbidden targetIp spellings, nothing stored`, async () => {
      expect(forbidden.length).toBeGreaterThanOrEqual(20);
      for (const targetIp of forbidden) {
        const res = await cloud.post('/api/cloud/gateway/create', { ...valid(), targetIp });
        expect([targetIp, res.status]).toEqual([targetIp, 400]);
        expect(res.body.error.message).toMatch(/^targetIp: /);
      }
      expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(valid().port);
    });

    it("with a token, DELETE /routes/:port removes only the caller's own route; without one, any (SPEC.md)", async () => {
      const port = range.from + 21;
      expect((await cloud.post('/api/cloud/gateway/create', { ...valid(), port })).status).toBe(200);
      const other = await createTenant(db);
      const intruder = stack.http.with({ authorization: `Bearer ${other.token}` });
      expect((await intruder.delete(`/api/cloud/gateway/routes/${port}`)).status).toBe(404);
      expect((await intruder.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(port);
      expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).toContain(port);
      expect((await stack.http.delete(`/api/cloud/gateway/routes/${port}`)).status).toBe(200);
    });

    it.each([
      ['not a number', 'abc', 400],
      ['out of range', '70000', 400],
      ['no route', String(0 + 25999), 404],
    ])('DELETE /routes/:port %s: %s', async (_l, port, status) => {
      const res = await stack.http.delete(`/api/cloud/gateway/routes/${port === '25999' ? range.to : port}`);
      expect(res.status).toBe(status);
    });
  });

  // Last: it restarts the api and the edge on a range of two ports.
  itWithEdge('the gateway HAProxy killed: health says so at once, and the route serves again', async () => {
    const port = range.from + 14;
    const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
    expect(created.status).toBe(200);
    try {
      const [gateway] = childPids(stack.process('edge')!.pid!, 'gateway.cfg');
      process.kill(gateway, 'SIGKILL');
      const down = await waitFor(
        'health to say the range is not held',
        async () => {
          const res = await cloud.get('/api/cloud/gateway/health');
          return res.body.port_range.held ? undefined : res.body;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(down).toMatchObject({ status: 'degraded', listeners: { bound: 0, missing: expect.arrayContaining([port]) } });
      const servesAgain = async () => (realResources() ? (await exchange(port).catch(() => '')).includes(instance.id) : providerServes(created.body));
      await waitFor('the route to serve again', servesAgain, { timeoutMs: 20_000, intervalMs: 200 });
      const up = await waitFor(
        'health to say the range is held again',
        async () => {
          const res = await cloud.get('/api/cloud/gateway/health');
          return res.body.port_range.held ? res.body : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(up.listeners.missing).not.toContain(port);
    } finally {
      await stack.http.delete(`/api/cloud/gateway/routes/${port}`);
    }
  });

  itWithEdge('leaves out a port something else held when the edge started: never offered, 409 on create, shown in health', async () => {
    const [taken, free] = [range.to - 1, range.to];
    await stack.stopService('edge');
    await stack.stopService('api');
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(taken, '127.0.0.1', r));
    try {
      stack.env.GATEWAY_PORT_RANGE = `${taken}-${free}`;
      await stack.startService('api');
      await stack.startService('edge');
      const health = await waitFor(
        'the edge to report the range',
        async () => {
          const res = await cloud.get('/api/cloud/gateway/health');
          return res.body.port_range?.held ? res : undefined;
        },
        { timeoutMs: 15_000 },
      );
      // (Not its status: routes other suites left on ports outside this range make it 'degraded'.)
      expect(health.body).toMatchObject({ port_range: { from: taken, to: free, held: true, taken: [taken] } });
      for (let i = 0; i < 5; i++) expect((await cloud.get('/api/cloud/gateway/available-port')).body.port).toBe(free);

      const refused = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: taken });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toContain('had this port bound when the edge started');
      const created = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: free });
      expect(created.status).toBe(200);
      if (realResources()) expect(await exchange(free)).toContain(instance.id);
      else expect(await providerServes(created.body)).toBe(true);
      const none = await cloud.get('/api/cloud/gateway/available-port');
      expect(none.status).toBe(409);
      expect(none.body.error.message).toContain('no free port left');
    } finally {
      squatter.close();
    }
    // Gone now, but left out until the edge starts again: still not offered.
    expect((await cloud.get('/api/cloud/gateway/available-port')).status).toBe(409);
    expect((await stack.http.delete(`/api/cloud/gateway/routes/${free}`)).status).toBe(200);

    // An api configured with a wider range than the edge: a route the edge cannot serve is its failure (503), not a conflict over the port.
    // (The edge's own range: under the fake provider the edge is not the load balancer.)
    if (!realResources()) return;
    await stack.stopService('api');
    stack.env.GATEWAY_PORT_RANGE = `${range.from}-${range.to}`;
    await stack.startService('api');
    const outside = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: range.from });
    expect(outside.status).toBe(503);
    expect(outside.body.error.message).toContain(`outside the edge's GATEWAY_PORT_RANGE (${taken}-${free})`);
    expect((await cloud.get('/api/cloud/gateway/used-ports')).body.ports).not.toContain(range.from);
  });
});
