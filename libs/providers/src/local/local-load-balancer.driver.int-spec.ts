import { BALANCER_STATUS_CHANNEL, EDGE_CHANNEL } from '@stratus/core';
import { loadBalancerContract, waitFor } from '@stratus/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { LoadBalancers1795800000000 } from '../../../core/src/migrations/1795800000000-LoadBalancers';
import { RouteListeners1795900000000 } from '../../../core/src/migrations/1795900000000-RouteListeners';
import { HostListeners1795950000000 } from '../../../core/src/migrations/1795950000000-HostListeners';
import { DriverError } from '../driver-error';
import { ANY_HOST, ListenerSpec } from '../load-balancer.driver';
import { LocalLoadBalancerDriver } from './local-load-balancer.driver';

// Against a throwaway schema on the local PostgreSQL, made by the migration itself: the driver is its SQL.
const url = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `lb_spec_${process.pid}`;

describe('LocalLoadBalancerDriver', () => {
  let ds: DataSource;
  let driver: LocalLoadBalancerDriver;
  let listening: Client;
  const notices: string[] = [];

  const GATEWAY = { host: '127.88.0.1', range: { from: 20000, to: 20010 } };
  const HTTP = { host: '127.88.0.1', port: 8081 };
  const EDGE = { gateway: GATEWAY, http: HTTP };
  const spec: ListenerSpec = { id: 'pg-ha-1', address: '127.88.0.9', port: 5432, protocol: 'tcp', check: { kind: 'connect' } };
  const backend = (port: number) => ({ address: '127.88.0.10', port });

  beforeAll(async () => {
    ds = await new DataSource({ type: 'postgres', url, extra: { options: `-c search_path=${schema}`, max: 2 } }).initialize();
    await ds.query(`CREATE SCHEMA ${schema}`);
    // What RouteListeners refers to, as far as it does: a certificate to name, the routes it turns into listeners, the outbox its trigger writes.
    await ds.query(`CREATE TABLE ${schema}.certificates (id serial PRIMARY KEY)`);
    await ds.query(`INSERT INTO ${schema}.certificates DEFAULT VALUES`);
    await ds.query(`CREATE TABLE ${schema}.gateway_routes (id uuid PRIMARY KEY, port int, target_ip text, target_port int, certificate_id int)`);
    await ds.query(`INSERT INTO ${schema}.gateway_routes VALUES ('00000000-0000-4000-8000-000000000001', 20005, '10.1.0.7', 3000, 1)`);
    await ds.query(`CREATE TABLE ${schema}.outbox (id bigserial, job_name text, job_id text, payload jsonb, dispatched_at timestamptz)`);
    // And what HostListeners refers to: proxy hosts, one of an instance with an address, one of an instance without.
    await ds.query(`CREATE TABLE ${schema}.instances (id uuid PRIMARY KEY, address inet)`);
    await ds.query(`INSERT INTO ${schema}.instances VALUES ('00000000-0000-4000-8000-0000000000a1', '10.1.0.8'), ('00000000-0000-4000-8000-0000000000a2', NULL)`);
    await ds.query(`CREATE TABLE ${schema}.proxy_hosts (id uuid PRIMARY KEY, hostname text, instance_id uuid, forward_port int)`);
    await ds.query(
      `INSERT INTO ${schema}.proxy_hosts VALUES ('00000000-0000-4000-8000-0000000000b1', 'web.localhost', '00000000-0000-4000-8000-0000000000a1', 3000),
                                              ('00000000-0000-4000-8000-0000000000b2', 'new.localhost', '00000000-0000-4000-8000-0000000000a2', 3000)`,
    );
    const runner = ds.createQueryRunner();
    await new LoadBalancers1795800000000().up(runner);
    await new RouteListeners1795900000000().up(runner);
    // The upgrade as an installation on the default HTTP listener has it.
    const env = { host: process.env.EDGE_HTTP_HOST, port: process.env.EDGE_HTTP_PORT };
    process.env.EDGE_HTTP_HOST = HTTP.host;
    process.env.EDGE_HTTP_PORT = String(HTTP.port);
    try {
      await new HostListeners1795950000000().up(runner);
    } finally {
      for (const [k, v] of [
        ['EDGE_HTTP_HOST', env.host],
        ['EDGE_HTTP_PORT', env.port],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    await runner.release();
    driver = new LocalLoadBalancerDriver(() => ds, EDGE);
    listening = new Client({ connectionString: url });
    await listening.connect();
    listening.on('notification', (n) => notices.push(String(n.payload)));
    await listening.query(`LISTEN ${EDGE_CHANNEL}`);
  });

  afterAll(async () => {
    await listening?.end();
    await ds?.query(`DROP SCHEMA ${schema} CASCADE`);
    await ds?.destroy();
  });

  let contractIds = 0;
  loadBalancerContract('local', () => ({ driver, id: () => `contract-${++contractIds}`, tls: { address: GATEWAY.host, port: 20001, certificateId: 1 } }));

  it("an upgrade makes each existing route its gateway listener with one backend; a route's removal writes its listener's delete job", async () => {
    const id = 'route-00000000-0000-4000-8000-000000000001';
    expect(await driver.observe(id)).toEqual({
      status: 'pending',
      backends: [{ address: '10.1.0.7', port: 3000, state: 'active', health: 'unknown', connections: 0 }],
      spec: { id, address: '127.0.0.1', port: 20005, protocol: 'tcp', tls: { certificateId: 1 }, check: { kind: 'connect' } },
    });
    expect(await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [id])).toEqual([{ router: 'gateway' }]);
    await ds.query(`DELETE FROM gateway_routes`);
    expect(await ds.query(`SELECT job_name, job_id, payload FROM outbox`)).toEqual([
      {
        job_name: 'route.delete',
        job_id: 'route-delete-00000000-0000-4000-8000-000000000001-g1',
        payload: { routeId: '00000000-0000-4000-8000-000000000001', generation: 1 },
      },
    ]);
    await driver.deleteListener(id);
  });

  it("an upgrade makes each proxy host whose instance has an address its host listener with one backend; a proxy host's removal writes its listener's delete job", async () => {
    const id = 'host-00000000-0000-4000-8000-0000000000b1';
    expect(await driver.observe(id)).toEqual({
      status: 'pending',
      backends: [{ address: '10.1.0.8', port: 3000, state: 'active', health: 'unknown', connections: 0 }],
      spec: { id, address: HTTP.host, port: HTTP.port, protocol: 'http', hosts: ['web.localhost'], check: { kind: 'connect' } },
    });
    expect(await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [id])).toEqual([{ router: 'hosts' }]);
    // No address yet: the worker makes it once the instance has one.
    expect(await driver.observe('host-00000000-0000-4000-8000-0000000000b2')).toBeNull();
    await ds.query(`DELETE FROM outbox`);
    await ds.query(`DELETE FROM proxy_hosts`);
    expect(await ds.query(`SELECT job_name, job_id, payload FROM outbox ORDER BY job_id`)).toEqual(
      ['b1', 'b2'].map((n) => ({
        job_name: 'host.delete',
        job_id: `host-delete-00000000-0000-4000-8000-0000000000${n}-g1`,
        payload: { proxyHostId: `00000000-0000-4000-8000-0000000000${n}`, generation: 1 },
      })),
    );
    await driver.deleteListener(id);
  });

  it("serves an http listener on the edge's HTTP listener from the host router, and any other from its own", async () => {
    const routerOf = async (id: string) => (await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [id]))[0]?.router;
    const http: ListenerSpec = { id: 'h-in', address: HTTP.host, port: HTTP.port, protocol: 'http', hosts: ['a.localhost'], check: { kind: 'connect' } };
    await driver.ensureListener(http);
    expect(await routerOf('h-in')).toBe('hosts');
    await driver.ensureListener({ ...http, id: 'h-other-port', port: HTTP.port + 1 });
    expect(await routerOf('h-other-port')).toBe('balancer');
    await driver.ensureListener({ ...http, id: 'h-other-host', address: '127.88.0.2' });
    expect(await routerOf('h-other-host')).toBe('balancer');
    // Every name: on a balancer's own address, never on the edge's HTTP listener, which every proxy host shares.
    await driver.ensureListener({ ...http, id: 'h-any', address: '127.88.0.3', hosts: ['a.localhost', ANY_HOST] });
    expect(await routerOf('h-any')).toBe('balancer');
    await expect(driver.ensureListener({ ...http, id: 'h-in-any', hosts: [ANY_HOST] })).rejects.toMatchObject({ code: 'invalid' });
    expect(await routerOf('h-in-any')).toBeUndefined();
    // TCP on the HTTP listener's address and port: refused while a proxy host is there, else a balancer of its own.
    const tcp: ListenerSpec = { ...http, id: 'h-tcp', protocol: 'tcp', hosts: undefined };
    await expect(driver.ensureListener(tcp)).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining("listener h-in's") });
    await driver.deleteListener('h-in');
    await driver.ensureListener(tcp);
    expect(await routerOf('h-tcp')).toBe('balancer');
    for (const id of ['h-other-port', 'h-other-host', 'h-tcp', 'h-any']) await driver.deleteListener(id);
  });

  it("serves a tcp listener on the gateway's host and range from the gateway; TLS only there; an unknown certificate is invalid", async () => {
    const gatewayOf = async (id: string) => (await ds.query(`SELECT router FROM load_balancers WHERE id = $1`, [id]))[0]?.router === 'gateway';
    await driver.ensureListener({ ...spec, id: 'gw-in', address: GATEWAY.host, port: 20010 });
    expect(await gatewayOf('gw-in')).toBe(true);
    // A route made again on its port before the old one's listener went: the gateway takes both, the newer serves.
    await driver.ensureListener({ ...spec, id: 'gw-again', address: GATEWAY.host, port: 20010 });
    expect(await gatewayOf('gw-again')).toBe(true);
    await driver.ensureListener({ ...spec, id: 'gw-out', address: GATEWAY.host, port: 20011 });
    expect(await gatewayOf('gw-out')).toBe(false);
    await driver.ensureListener({ ...spec, id: 'gw-other-host', address: '127.88.0.2', port: 20010 });
    expect(await gatewayOf('gw-other-host')).toBe(false);
    await expect(driver.ensureListener({ ...spec, id: 'gw-out', address: GATEWAY.host, port: 20011, tls: { certificateId: 1 } })).rejects.toMatchObject({ code: 'invalid' });
    await expect(driver.ensureListener({ ...spec, id: 'gw-in', address: GATEWAY.host, port: 20010, tls: { certificateId: 99 } })).rejects.toMatchObject({
      code: 'invalid',
      message: 'no certificate 99',
    });
    // The refused change left the listener as it was.
    expect((await driver.observe('gw-in'))!.spec?.tls).toBeUndefined();
    for (const id of ['gw-in', 'gw-again', 'gw-out', 'gw-other-host']) await driver.deleteListener(id);
  });

  it('keeps a listener and its backends as asked, safe to repeat, and tells the edge', async () => {
    expect(await driver.observe(spec.id)).toBeNull();
    await driver.ensureListener(spec);
    await driver.ensureListener(spec);
    await driver.addBackend(spec.id, backend(1));
    await driver.addBackend(spec.id, backend(1));
    await driver.addBackend(spec.id, backend(2));
    expect(await driver.observe(spec.id)).toEqual({
      status: 'pending',
      backends: [
        { ...backend(1), state: 'active', health: 'unknown', connections: 0 },
        { ...backend(2), state: 'active', health: 'unknown', connections: 0 },
      ],
      spec,
    });
    await driver.drainBackend(spec.id, backend(1));
    await driver.removeBackend(spec.id, backend(2));
    await driver.removeBackend(spec.id, backend(3)); // never there: fine
    expect((await driver.observe(spec.id))!.backends.map((b) => b.state)).toEqual(['draining', 'removing']);
    // A removing backend asked for again is active again.
    await driver.addBackend(spec.id, backend(2));
    expect((await driver.observe(spec.id))!.backends.map((b) => b.state)).toEqual(['draining', 'active']);
    // A new shape forgets what the edge said of the old one.
    await ds.query(`UPDATE load_balancers SET bound_at = now() WHERE id = $1`, [spec.id]);
    expect((await driver.observe(spec.id))!.status).toBe('ok');
    await driver.ensureListener(spec);
    expect((await driver.observe(spec.id))!.status).toBe('ok');
    await driver.ensureListener({ ...spec, port: 5433 });
    expect((await driver.observe(spec.id))!.status).toBe('pending');

    await driver.deleteListener(spec.id);
    await driver.deleteListener(spec.id);
    expect(await driver.observe(spec.id)).toBeNull();
    expect(await ds.query(`SELECT * FROM load_balancer_backends`)).toEqual([]);
    // Each of the 13 changes told the edge (notifications arrive after commit, on another connection).
    await waitFor('13 notifications', () => notices.length >= 13, { timeoutMs: 10_000, intervalMs: 10 });
    expect(new Set(notices)).toEqual(new Set(['balancers']));
  });

  it("watch hears the edge's verdicts, and stops hearing them when told", async () => {
    const watcher = new LocalLoadBalancerDriver(() => ds, EDGE, url);
    const heard: string[] = [];
    const stop = watcher.watch((id) => heard.push(id));
    const id = `watch-${process.pid}`;
    // Said until heard: the watch's LISTEN comes up in the background.
    await waitFor('the notice to be heard', async () => {
      await ds.query(`SELECT pg_notify($1, $2)`, [BALANCER_STATUS_CHANNEL, id]);
      return heard.includes(id);
    });
    stop();
    // Another watch, still on, hears a later notice: the stopped one does not.
    const other = new LocalLoadBalancerDriver(() => ds, EDGE, url);
    const later: string[] = [];
    const stopOther = other.watch((x) => later.push(x));
    await waitFor('the later notice to be heard', async () => {
      await ds.query(`SELECT pg_notify($1, $2)`, [BALANCER_STATUS_CHANNEL, `${id}-later`]);
      return later.includes(`${id}-later`);
    });
    stopOther();
    expect(heard.filter((x) => x !== id)).toEqual([]);
  });

  it('refuses what no balancer can be given, and a drain of nothing', async () => {
    await expect(driver.ensureListener({ ...spec, id: 'x y' })).rejects.toMatchObject({ code: 'invalid' });
    await expect(driver.ensureListener({ ...spec, protocol: 'http', hosts: ['Bad_Host'] })).rejects.toMatchObject({ code: 'invalid' });
    await expect(driver.ensureListener({ ...spec, check: { kind: 'http', path: 'no-slash' } })).rejects.toMatchObject({ code: 'invalid' });
    await expect(driver.addBackend(spec.id, { address: 'db.internal', port: 1 })).rejects.toMatchObject({ code: 'invalid' });
    await expect(driver.addBackend('nobody', backend(1))).rejects.toBeInstanceOf(DriverError);
    await expect(driver.addBackend('nobody', backend(1))).rejects.toMatchObject({ code: 'not_found' });
    await driver.ensureListener(spec);
    await expect(driver.drainBackend(spec.id, backend(9))).rejects.toMatchObject({ code: 'not_found' });
  });
});
