import { EDGE_CHANNEL, GatewayRoute, isForeignKeyViolation, ManagedDatabase } from '@stratus/core';
import { createTenant, saveBareInstance, testConfig, testDataSource, waitFor } from '@stratus/testing';
import { randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/** The name the trigger reports under: the foreign key it replaced (gateway-route.lifecycle.ts maps it to a 400). */
const ROUTE_TARGET = 'FK_8b8eb9adce598d9b5698b54341b';

/*
 * What ties a route to its target (migration NetworkDriverAddresses), on the
 * migrated test database: a route is written only to a live target that
 * holds its address, and goes in the statement that takes the address away.
 */
describe('a route and its target', () => {
  let db: DataSource;
  let listening: Client;
  let projectId: string;
  const notices: string[] = [];
  const ports: number[] = [];

  beforeAll(async () => {
    db = await testDataSource();
    projectId = (await createTenant(db)).projectId;
    listening = new Client({ connectionString: testConfig().DATABASE_URL });
    await listening.connect();
    listening.on('notification', (n) => notices.push(String(n.payload)));
    await listening.query(`LISTEN ${EDGE_CHANNEL}`);
  });

  afterAll(async () => {
    await db.query('DELETE FROM gateway_routes WHERE port = ANY($1)', [ports]);
    await db.query('DELETE FROM instances WHERE project_id = $1', [projectId]);
    await db.query('DELETE FROM managed_databases WHERE project_id = $1', [projectId]);
    await listening?.end();
    await db?.destroy();
  });

  const address = () => `127.99.${randomInt(1, 250)}.${randomInt(1, 250)}`;
  /** Writes a route as the gateway lifecycle does, on a port of its own far from the suites' ranges. */
  let nextPort = 62_000 + randomInt(0, 3_000);
  const route = (target: string, targetIp: string, manager = db.manager) => {
    const port = nextPort++;
    ports.push(port);
    return manager.getRepository(GatewayRoute).save({ port, projectId, userId: 'u', protocol: 'tcp' as const, targetIp, targetLease: target, targetPort: 3000 });
  };
  const routeExists = async (id: string) => (await db.getRepository(GatewayRoute).countBy({ id })) === 1;
  const refusal = (write: Promise<unknown>) =>
    write.then(
      () => 'written',
      (err: unknown) => (isForeignKeyViolation(err, ROUTE_TARGET) ? 'refused' : String(err)),
    );

  it("is written only to a live instance that holds the route's address", async () => {
    const ip = address();
    const live = await saveBareInstance(db, { projectId, userId: 'u', address: ip });
    expect(await refusal(route(live.id, address()))).toBe('refused');
    const unassigned = await saveBareInstance(db, { projectId, userId: 'u', status: 'BUILD', address: null });
    expect(await refusal(route(unassigned.id, ip))).toBe('refused');
    const leaving = await saveBareInstance(db, { projectId, userId: 'u', status: 'DELETING', address: address() });
    expect(await refusal(route(leaving.id, leaving.address!))).toBe('refused');
    expect(await refusal(route(live.id, ip))).toBe('written');
  });

  it('goes, and the edge is told, when its instance gives up the address or is deleted', async () => {
    const ip = address();
    const instance = await saveBareInstance(db, { projectId, userId: 'u', address: ip });
    const first = await route(instance.id, ip);
    const before = notices.length;
    // Unrelated changes leave it.
    await db.query(`UPDATE instances SET metadata = metadata || '{"k":"v"}', status = 'SHUTOFF' WHERE id = $1`, [instance.id]);
    expect(await routeExists(first.id)).toBe(true);
    await db.query('UPDATE instances SET address = NULL WHERE id = $1', [instance.id]);
    expect(await routeExists(first.id)).toBe(false);
    await waitFor('the edge to be told', () => notices.slice(before).includes('routes'), { timeoutMs: 30_000, intervalMs: 20 });

    await db.query('UPDATE instances SET address = $2 WHERE id = $1', [instance.id, ip]);
    const second = await route(instance.id, ip);
    await db.query('DELETE FROM instances WHERE id = $1', [instance.id]);
    expect(await routeExists(second.id)).toBe(false);
  });

  it('goes when its database server gives up the address or is deleted; a server being deleted is no target', async () => {
    const ip = address();
    const server = await db.getRepository(ManagedDatabase).save({
      engine: 'redis',
      projectId,
      userId: 'u',
      name: `route-${randomInt(1, 1e9).toString(36).replace(/[0-9]/g, 'x')}`,
      dbName: null,
      dbUser: null,
      version: '7',
      extensions: [],
      superuser: false,
      ha: false,
      passwordVerifier: 'ab'.repeat(32),
      flavorId: 'db.small',
      networkId: 'private',
      keypairName: 'default',
      securityGroupIds: [],
      address: ip,
      floatingIp: ip,
      port: 6379,
      status: 'ready',
      generation: 1,
    });
    const key = `redis-${server.id}`;
    expect(await refusal(route(`postgres-${server.id}`, ip))).toBe('refused');
    const first = await route(key, ip);
    await db.query('UPDATE managed_databases SET address = NULL WHERE id = $1', [server.id]);
    expect(await routeExists(first.id)).toBe(false);
    await db.query(`UPDATE managed_databases SET address = $2 WHERE id = $1`, [server.id, ip]);
    const second = await route(key, ip);
    await db.query(`UPDATE managed_databases SET status = 'deleting' WHERE id = $1`, [server.id]);
    expect(await refusal(route(key, ip))).toBe('refused');
    await db.query('DELETE FROM managed_databases WHERE id = $1', [server.id]);
    expect(await routeExists(second.id)).toBe(false);
  });

  it("reaches a cluster's address (a route moved to the balancer of a cluster made from its instance) while the cluster holds it, and goes with it", async () => {
    const ip = address();
    const [{ id }] = await db.query(
      `INSERT INTO clusters (project_id, user_id, name, image_id, flavor_id, network_id, subnet_id, key_name, port, dns_name, min_size, max_size, desired_size,
                             scale_out_threshold, scale_in_threshold, status, address)
       VALUES ($1, 'u', 'route', 'plain', 'm1.small', 'private', 'private-subnet', 'default', 3000, $2, 1, 1, 1, 0.7, 0.2, 'CREATE_COMPLETE', $3) RETURNING id`,
      [projectId, `route-${randomInt(1, 1e9)}.localhost`, ip],
    );
    const key = `cluster-${id}`;
    expect(await refusal(route(key, address()))).toBe('refused');
    expect(await refusal(route(`cluster-${randomUUID()}`, ip))).toBe('refused');
    const first = await route(key, ip);
    await db.query('UPDATE clusters SET address = NULL WHERE id = $1', [id]);
    expect(await routeExists(first.id)).toBe(false);
    await db.query('UPDATE clusters SET address = $2 WHERE id = $1', [id, ip]);
    const second = await route(key, ip);
    await db.query(`UPDATE clusters SET status = 'DELETE_IN_PROGRESS' WHERE id = $1`, [id]);
    expect(await refusal(route(key, ip))).toBe('refused');
    await db.query('DELETE FROM clusters WHERE id = $1', [id]);
    expect(await routeExists(second.id)).toBe(false);
  });

  it('a route written while its target gives up the address waits for that, then is refused: none outlives the address', async () => {
    const ip = address();
    const instance = await saveBareInstance(db, { projectId, userId: 'u', address: ip });
    const worker = db.createQueryRunner();
    await worker.connect();
    await worker.startTransaction();
    try {
      // The worker's delete, between taking the address away and committing.
      await worker.query('UPDATE instances SET address = NULL WHERE id = $1', [instance.id]);
      const racing = refusal(route(instance.id, ip));
      await waitFor('the route write to wait for the target row', async () => (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`))[0].n > 0, {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
      await worker.commitTransaction();
      expect(await racing).toBe('refused');
    } finally {
      if (worker.isTransactionActive) await worker.rollbackTransaction();
      await worker.release();
    }
    expect(await db.getRepository(GatewayRoute).countBy({ targetLease: instance.id })).toBe(0);
  });
});
