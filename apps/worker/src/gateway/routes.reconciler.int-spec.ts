import { AppConfig, GatewayRoute, loadConfig, migrate } from '@stratus/core';
import { DriverError } from '@stratus/providers';
import { dropDatabase, FakeControl, FakeLoadBalancerDriver, testEnv } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { routeListenerId } from './route-listener';
import { RouteListeners } from './route-listeners';
import { RoutesReconciler } from './routes.reconciler';

/**
 * The reconciler between the routes PostgreSQL holds and the listeners a
 * load-balancer driver holds (the fake's, in memory), on a throwaway
 * database migrated as an installation's is.
 */
describe('RoutesReconciler', () => {
  const database = `stratus_routes_rec_${process.pid}`;
  const env = testEnv();
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${database}`;
  let ds: DataSource;
  let config: AppConfig;
  let driver: FakeLoadBalancerDriver;
  let listeners: RouteListeners;
  let reconciler: RoutesReconciler;

  beforeAll(async () => {
    config = loadConfig({ ...env, DATABASE_URL: url.toString(), GATEWAY_HOST: '127.0.0.1' });
    ds = await migrate(config);
    driver = new FakeLoadBalancerDriver(new FakeControl());
    listeners = new RouteListeners(ds, config, driver);
    reconciler = new RoutesReconciler(ds, listeners, driver, config);
  });

  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(url.toString());
  });

  /** A route row as the api writes it (no lease: the reconciler does not look at it); `ageMs` back-dates it. */
  async function route(port: number, fields: Partial<GatewayRoute> = {}, ageMs = 60_000): Promise<GatewayRoute> {
    const saved = await ds.getRepository(GatewayRoute).save({
      port,
      projectId: randomUUID(),
      userId: 'u',
      protocol: 'tcp' as const,
      targetIp: '10.9.0.7',
      targetLease: null,
      targetPort: 3000,
      certificateId: null,
      boundAt: null,
      bindError: null,
      ...fields,
    });
    await ds.query(`UPDATE gateway_routes SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [saved.id, ageMs / 1000]);
    return ds.getRepository(GatewayRoute).findOneByOrFail({ id: saved.id });
  }

  it('makes the listener of a route that has none, and writes the verdict to the route', async () => {
    const r = await route(20101);
    await reconciler.sweep();
    const seen = await driver.observe(routeListenerId(r.id));
    expect(seen?.spec).toMatchObject({ address: '127.0.0.1', port: 20101, protocol: 'tcp' });
    expect(seen?.backends).toEqual([{ address: '10.9.0.7', port: 3000, state: 'active', health: 'unknown', connections: 0 }]);
    expect((await ds.getRepository(GatewayRoute).findOneByOrFail({ id: r.id })).boundAt).not.toBeNull();
  });

  it('brings a listener whose port or certificate differs from its route back to it', async () => {
    const r = await route(20102, { boundAt: new Date() });
    const id = routeListenerId(r.id);
    await driver.ensureListener({ id, address: '127.0.0.1', port: 20999, protocol: 'tcp', tls: { certificateId: 7 }, check: { kind: 'connect' } });
    await driver.addBackend(id, { address: '10.9.0.7', port: 3000 });
    await reconciler.sweep();
    const seen = await driver.observe(id);
    expect(seen?.spec).toMatchObject({ port: 20102 });
    expect(seen?.spec?.tls).toBeUndefined();
  });

  it('brings a listener whose backends differ from its route back to its one backend', async () => {
    const r = await route(20107, { boundAt: new Date() });
    const id = routeListenerId(r.id);
    await driver.ensureListener({ id, address: '127.0.0.1', port: 20107, protocol: 'tcp', check: { kind: 'connect' } });
    await driver.addBackend(id, { address: '10.9.0.8', port: 3000 });
    await reconciler.sweep();
    expect((await driver.observe(id))?.backends.map((b) => `${b.address}:${b.port} ${b.state}`)).toEqual(['10.9.0.7:3000 active']);
  });

  it('deletes a route listener whose route is gone, and leaves listeners that are not routes alone', async () => {
    const gone = routeListenerId(randomUUID());
    await driver.ensureListener({ id: gone, address: '127.0.0.1', port: 20103, protocol: 'tcp', check: { kind: 'connect' } });
    await driver.ensureListener({ id: 'cluster-1', address: '127.0.0.1', port: 20104, protocol: 'tcp', check: { kind: 'connect' } });
    await reconciler.sweep();
    expect(await driver.observe(gone)).toBeNull();
    expect(await driver.observe('cluster-1')).not.toBeNull();
  });

  it('leaves a route being created to its job for a while', async () => {
    const young = await route(20105, {}, 0);
    await reconciler.sweep();
    expect(await driver.observe(routeListenerId(young.id))).toBeNull();
  });

  it("writes a listener's failure to its route, and its recovery", async () => {
    const r = await route(20106, { boundAt: new Date() });
    await reconciler.sweep();
    const fail = jest.spyOn(driver, 'observe').mockResolvedValue({
      status: 'EADDRINUSE: another process on the gateway host has this port bound',
      backends: [{ address: '10.9.0.7', port: 3000, state: 'active', health: 'unknown', connections: 0 }],
    });
    await reconciler.sweep();
    expect(await ds.getRepository(GatewayRoute).findOneByOrFail({ id: r.id })).toMatchObject({ boundAt: null, bindError: expect.stringContaining('EADDRINUSE') });
    fail.mockRestore();
    await reconciler.sweep();
    expect(await ds.getRepository(GatewayRoute).findOneByOrFail({ id: r.id })).toMatchObject({ boundAt: expect.any(Date), bindError: null });
  });

  it('makes a listener the provider says it does not serve again, and writes why it cannot to a route past its create', async () => {
    const bound = await route(20108, { boundAt: new Date() });
    await reconciler.sweep();
    // Past the time its job has alone, with no verdict yet.
    const creating = await route(20109);
    const inError = (status: string) => ({ status, backends: [{ address: '10.9.0.7', port: 3000, state: 'active' as const, health: 'unknown' as const, connections: 0 }] });
    // An Octavia load balancer in ERROR, whose replacement goes to ERROR too.
    const observe = jest.spyOn(driver, 'observe').mockResolvedValue(inError('the Octavia load balancer 5c0e2a4e-9d1b-4f3e-8a61-0d2b7c9e4f10 is in ERROR'));
    const failure = 'the Octavia load balancer 7f1d… of listener route-… went to ERROR (operating status OFFLINE): Octavia could not apply a change';
    const ensure = jest.spyOn(driver, 'ensureListener').mockRejectedValue(new DriverError('retryable', failure));
    await reconciler.sweep();
    expect(ensure).toHaveBeenCalledWith(expect.objectContaining({ id: routeListenerId(bound.id) }));
    expect(await ds.getRepository(GatewayRoute).findOneByOrFail({ id: bound.id })).toMatchObject({ boundAt: null, bindError: failure });
    // One being created is its job's: its create waits for that verdict.
    expect(ensure).toHaveBeenCalledWith(expect.objectContaining({ id: routeListenerId(creating.id) }));
    expect(await ds.getRepository(GatewayRoute).findOneByOrFail({ id: creating.id })).toMatchObject({ boundAt: null, bindError: null });
    observe.mockRestore();
    ensure.mockRestore();
    await reconciler.sweep();
    expect(await ds.getRepository(GatewayRoute).findOneByOrFail({ id: bound.id })).toMatchObject({ boundAt: expect.any(Date), bindError: null });
  });
});
