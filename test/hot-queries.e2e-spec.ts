import {
  AddressLease,
  compareAndSet,
  DATABASE_CAS,
  Flavor,
  hotFindOne,
  insertTogether,
  Instance,
  isUniqueViolation,
  ManagedDatabase,
  OutboxEntry,
  SecurityGroup,
} from '@stratus/core';
import { createTenant, saveBareInstance, testDataSource } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource, ObjectLiteral } from 'typeorm';

/**
 * The hot queries (libs/core/src/database/hot-queries.ts) bypass TypeORM;
 * what they answer and write must stay what TypeORM would, column for column,
 * as entities change. Compared on real rows of the test database.
 */
describe('hot queries', () => {
  let db: DataSource;
  let projectId: string;

  beforeAll(async () => {
    db = await testDataSource();
    projectId = (await createTenant(db)).projectId;
  });

  afterAll(async () => {
    await db.query('DELETE FROM managed_databases WHERE project_id = $1', [projectId]);
    await db.query('DELETE FROM instances WHERE project_id = $1', [projectId]);
    await db.query(`DELETE FROM address_leases WHERE resource_id LIKE 'hot-%'`);
    await db.query(`DELETE FROM outbox WHERE job_id LIKE 'hot-%'`);
    await db.destroy();
  });

  async function expectSameAsTypeorm<E extends ObjectLiteral>(entity: new () => E, where: Partial<E> | Array<Partial<E>>): Promise<void> {
    const hot = await hotFindOne(db, entity, where);
    const orm = await db.getRepository(entity).findOneByOrFail(where);
    expect(hot).toBeDefined();
    expect({ ...hot }).toEqual({ ...orm });
  }

  it('reads a managed database as findOneBy does', async () => {
    const row = await db.getRepository(ManagedDatabase).save({
      engine: 'postgres',
      projectId,
      userId: 'hot-reader',
      name: `hot-${randomUUID().slice(0, 8)}`,
      dbName: 'app',
      dbUser: 'appuser',
      version: '16',
      extensions: ['pgcrypto', 'citext'],
      superuser: false,
      ha: false,
      passwordVerifier: 'SCRAM-SHA-256$4096:x$y:z',
      flavorId: 'm1.small',
      networkId: 'net-private',
      keypairName: 'default',
      securityGroupIds: ['sg-1', 'sg-2'],
      address: '127.99.1.7',
      floatingIp: null,
      port: 5432,
      status: 'provisioning',
      statusReason: null,
      generation: 3,
      provisionDeadline: new Date(Date.now() + 60_000),
    });
    await expectSameAsTypeorm(ManagedDatabase, { id: row.id, engine: 'postgres' });
    expect(await hotFindOne(db, ManagedDatabase, { id: row.id, engine: 'redis' })).toBeUndefined();
  });

  it('reads an instance, its jsonb metadata included, as findOneBy does', async () => {
    const row = await saveBareInstance(db, {
      projectId,
      userId: 'hot-reader',
      name: 'hot',
      securityGroupIds: ['sg-1'],
      userData: 'echo hi',
      status: 'BUILD',
      metadata: { resourceLimits: 'enforced', domains: 'hot.localhost' },
      buildDeadline: new Date(Date.now() + 60_000),
    });
    await expectSameAsTypeorm(Instance, { id: row.id });
  });

  it('reads catalog rows as findOneBy does, alternatives (OR) included', async () => {
    const flavor = (await db.getRepository(Flavor).find({ take: 1 }))[0];
    const group = (await db.getRepository(SecurityGroup).find({ take: 1 }))[0];
    await expectSameAsTypeorm(Flavor, [{ id: flavor.name }, { name: flavor.name }]);
    await expectSameAsTypeorm(SecurityGroup, { name: group.name });
  });

  const databaseValues = (name: string, address: string): Partial<ManagedDatabase> => ({
    engine: 'redis',
    projectId,
    userId: 'hot-writer',
    name,
    dbName: null,
    dbUser: null,
    version: '7',
    extensions: [],
    superuser: false,
    ha: false,
    passwordVerifier: 'ab'.repeat(32),
    flavorId: 'm1.small',
    networkId: 'net-private',
    keypairName: 'default',
    securityGroupIds: ['sg-1', 'sg-2'],
    address,
    port: 6379,
    status: 'provisioning',
    generation: 1,
    provisionDeadline: new Date(Date.now() + 60_000),
  });

  it('inserts rows of several tables in one statement and returns them as findOneBy reads them, defaults filled in', async () => {
    const jobId = `hot-${randomUUID()}`;
    const [row, lease, entry] = await insertTogether(db, [
      { entity: ManagedDatabase, values: databaseValues('together', '127.99.2.1') },
      { entity: AddressLease, values: { address: '127.99.2.1', resourceKind: 'redis', resourceId: jobId } },
      { entity: OutboxEntry, values: { jobName: 'database.create', jobId, payload: { databaseId: 1, generation: 1 } } },
    ]);
    expect(row).toEqual(await db.getRepository(ManagedDatabase).findOneByOrFail({ id: row.id }));
    expect(row.floatingIp).toBeNull(); // a column default
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(lease).toEqual(await db.getRepository(AddressLease).findOneByOrFail({ resourceId: jobId }));
    expect(entry).toEqual(await db.getRepository(OutboxEntry).findOneByOrFail({ jobId }));
    expect(entry.payload).toEqual({ databaseId: 1, generation: 1 });
  });

  it('writes a json array as json, not as a PostgreSQL array', async () => {
    const jobId = `hot-${randomUUID()}`;
    const [entry] = await insertTogether(db, [{ entity: OutboxEntry, values: { jobName: 'x', jobId, payload: ['a', 'b'] as unknown as Record<string, string> } }]);
    expect(entry.payload).toEqual(['a', 'b']);
  });

  it('writes nothing when one of the rows is refused', async () => {
    const taken = `hot-${randomUUID()}`;
    await insertTogether(db, [{ entity: AddressLease, values: { address: '127.99.2.2', resourceKind: 'redis', resourceId: taken } }]);
    const jobId = `hot-${randomUUID()}`;
    const refused = insertTogether(db, [
      { entity: ManagedDatabase, values: databaseValues('refused', '127.99.2.2') },
      { entity: OutboxEntry, values: { jobName: 'database.create', jobId, payload: {} } },
      { entity: AddressLease, values: { address: '127.99.2.2', resourceKind: 'redis', resourceId: `hot-${randomUUID()}` } },
    ]);
    const err = await refused.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isUniqueViolation(err)).toBe(true);
    expect(await db.getRepository(ManagedDatabase).findOneBy({ projectId, name: 'refused' })).toBeNull();
    expect(await db.getRepository(OutboxEntry).findOneBy({ jobId })).toBeNull();
  });

  it('compareAndSet moves a row once, outside a transaction (hot) and inside one alike', async () => {
    const [row] = await insertTogether(db, [{ entity: ManagedDatabase, values: databaseValues('cas', '127.99.2.3') }]);
    expect(await compareAndSet(db.manager, DATABASE_CAS, row.id, 'provisioning', 'ready', 1, { floatingIp: '127.99.2.3' })).toBe(true);
    expect(await compareAndSet(db.manager, DATABASE_CAS, row.id, 'provisioning', 'ready', 1)).toBe(false); // already moved
    expect(await db.transaction((m) => compareAndSet(m, DATABASE_CAS, row.id, 'ready', 'deleting', 2))).toBe(false); // stale generation
    expect(await db.transaction((m) => compareAndSet(m, DATABASE_CAS, row.id, 'ready', 'deleting', 1))).toBe(true);
    const moved = await db.getRepository(ManagedDatabase).findOneByOrFail({ id: row.id });
    expect([moved.status, moved.floatingIp]).toEqual(['deleting', '127.99.2.3']);
  });
});
