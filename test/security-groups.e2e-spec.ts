import { accepts, createManaged, DEMO_INSTANCE, useSuite, waitFor, waitForDatabase, waitForInstance } from '@stratus/testing';
import { Client } from 'pg';

/** Listens on 80, 3000 and 4000 of the instance's own address, as the web group's user would. */
const SERVER_USER_DATA = `#!/bin/sh
cat > serve.js <<'EOF'
const net = require('node:net');
for (const port of [80, 3000, 4000]) {
  net.createServer((s) => { s.on('error', () => {}); s.end('port ' + port + '\\n'); }).listen(port, process.env.HOST);
}
EOF
"$STRATUS_NODE" serve.js > serve.log 2>&1 &
`;

/**
 * An HTTP server on the instance port that connects, from inside the
 * instance, wherever it is told: GET /probe?host=&port=[&bind=1] answers
 * open, refused or timeout. `bind=1` uses the instance's own address as the
 * source, as software that binds its address does.
 */
const PROBE_USER_DATA = `#!/bin/sh
cat > probe.js <<'EOF'
const net = require('node:net');
require('node:http').createServer((req, res) => {
  const q = new URL(req.url, 'http://probe').searchParams;
  const s = net.connect({ host: q.get('host'), port: Number(q.get('port')), localAddress: q.get('bind') ? process.env.HOST : undefined });
  let done = false;
  const end = (o) => { if (!done) { done = true; s.destroy(); res.end(o); } };
  s.once('connect', () => end('open'));
  s.once('error', (e) => end(e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' ? 'refused' : 'error ' + e.code));
  s.setTimeout(3000, () => end('timeout'));
}).listen(Number(process.env.PORT), process.env.HOST);
EOF
"$STRATUS_NODE" probe.js > probe.log 2>&1 &
`;

describe('security groups on the local provider', () => {
  const s = useSuite();

  /** An ACTIVE plain instance whose user_data left a server on `port` of its address (probed as root, the control plane). */
  async function instance(name: string, groups: string[], userData: string, port: number): Promise<string> {
    const created = await s.api.post('/v1/instances', { name, ...DEMO_INSTANCE, image_id: 'plain', security_group_names: groups, user_data: userData });
    expect(created.status).toBe(202);
    const address = (await waitForInstance(s.api, created.body.id)).metadata.privateIp as string;
    await waitFor(`${name} listening on ${port}`, () => accepts(address, port), { timeoutMs: 60_000, intervalMs: 200 });
    return address;
  }

  /** What the probe instance at `from` meets when it connects to host:port. */
  async function probe(from: string, host: string, port: number, bind = true): Promise<string> {
    const res = await fetch(`http://${from}:3000/probe?host=${host}&port=${port}${bind ? '&bind=1' : ''}`);
    expect(res.status).toBe(200);
    return res.text();
  }

  let client = '';
  beforeAll(async () => {
    client = await instance('sg-client', ['default'], PROBE_USER_DATA, 3000);
  });

  it('an instance with only the web group answers on 80 from another instance, and on no other port', async () => {
    const web = await instance('sg-web-only', ['web'], SERVER_USER_DATA, 80);
    expect(await probe(client, web, 80)).toBe('open');
    expect(['refused', 'timeout']).toContain(await probe(client, web, 3000));
    expect(['refused', 'timeout']).toContain(await probe(client, web, 4000));
    // The control plane (this test runs as root, like the edge and the worker's probes) still reaches it.
    expect(await accepts(web, 3000)).toBe(true);
  });

  it('with default as well, the other ports answer too', async () => {
    const both = await instance('sg-web-default', ['web', 'default'], SERVER_USER_DATA, 80);
    for (const port of [80, 3000, 4000]) expect(await probe(client, both, port)).toBe('open');
  });

  it('an instance is judged by who it is: the source address it leaves to the kernel does not matter', async () => {
    const both = await instance('sg-any-source', ['web', 'default'], SERVER_USER_DATA, 80);
    // Without binding its address the client's packets leave from 127.0.0.1; its user still makes it a member of the network.
    expect(await probe(client, both, 3000, false)).toBe('open');
  });

  it('a managed server is reachable from instances as soon as it is ready, not a sweep later', async () => {
    const created = await createManaged(s.api, 'cache', { name: 'sg-cache' });
    const ready = await waitForDatabase(s.api, 'cache', created.body.id, ['ready'], { timeoutMs: 90_000, intervalMs: 20 });
    expect(await probe(client, ready.floating_ip, 6379)).toBe('open');
  });

  it("a tenant's superuser runs programs on its PostgreSQL that reach no local address outside the pool either", async () => {
    const password = `Sg-super-${process.pid}`;
    const created = await createManaged(s.api, 'databases', { name: 'sg-super', superuser: true, db_password: password });
    const ready = await waitForDatabase(s.api, 'databases', created.body.id);
    const db = new Client({ host: ready.floating_ip, port: ready.port, user: ready.db_user, password, database: ready.db_name });
    await db.connect();
    try {
      /** What a program the server runs (as the database servers' user) meets when it connects to 127.0.0.1:port. */
      const fromServer = async (port: number) => {
        await db.query('CREATE TEMP TABLE IF NOT EXISTS probe (line text); TRUNCATE probe');
        await db.query(`COPY probe FROM PROGRAM 'timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/${port}" 2>/dev/null && echo open || echo refused'`);
        return (await db.query('SELECT line FROM probe')).rows[0]?.line;
      };
      // The control plane's PostgreSQL, password-less from 127.0.0.1 on this host; the API is a public endpoint.
      expect(await fromServer(5432)).toBe('refused');
      expect(await fromServer(Number(s.stack.env.API_PORT))).toBe('open');
    } finally {
      await db.end();
    }
  });

  it("an instance reaches no local address outside the pool but the public endpoints (the control plane's PostgreSQL is on 127.0.0.1)", async () => {
    expect(['refused', 'timeout']).toContain(await probe(client, '127.0.0.1', 5432, false));
    expect(await probe(client, '127.0.0.1', Number(s.stack.env.API_PORT), false)).toBe('open');
  });
});
