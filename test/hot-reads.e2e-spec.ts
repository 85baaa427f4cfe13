import { Flavor, hotFindOne, Instance, ManagedDatabase, SecurityGroup } from '@stratus/core';
import { createTenant, testDataSource } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * The hot reads (libs/core/src/database/hot-reads.ts) bypass TypeORM; what
 * they answer must stay what TypeORM would, column for column, as entities
 * change. Compared on real rows of the test database.
 */
describe('hot reads', () => {
  let db: DataSource;
  let projectId: string;

  beforeAll(async () => {
    db = await testDataSource();
    projectId = (await createTenant(db)).projectId;
  });

  afterAll(async () => {
    await db.query('DELETE FROM managed_databases WHERE project_id = $1', [projectId]);
    await db.query('DELETE FROM instances WHERE project_id = $1', [projectId]);
    await db.destroy();
  });

  async function expectSameAsTypeorm<E extends ObjectLiteral>(entity: new () => E, where: Partial<E> | Array<Partial<E>>): Promise<void> {
    const hot = await hotFindOne(db, entity, where);
    const orm = await db.getRepository(entity as EntityTarget<E>).findOneByOrFail(where as never);
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
    const row = await db.getRepository(Instance).save({
      projectId,
      userId: 'hot-reader',
      name: 'hot',
      imageId: 'plain',
      imageName: 'plain',
      flavorId: 'm1.small',
      networkId: 'net-private',
      keypairName: 'default',
      securityGroupIds: ['sg-1'],
      port: 3000,
      dname: null,
      userData: 'echo hi',
      address: '127.99.1.8',
      status: 'BUILD',
      statusReason: null,
      metadata: { resourceLimits: { enforced: false }, domains: ['hot.localhost'] },
      generation: 1,
      buildDeadline: new Date(Date.now() + 60_000),
    } as Partial<Instance>);
    await expectSameAsTypeorm(Instance, { id: row.id });
  });

  it('reads catalog rows as findOneBy does, alternatives (OR) included', async () => {
    const flavor = (await db.getRepository(Flavor).find({ take: 1 }))[0];
    const group = (await db.getRepository(SecurityGroup).find({ take: 1 }))[0];
    await expectSameAsTypeorm(Flavor, [{ id: flavor.name }, { name: flavor.name }]);
    await expectSameAsTypeorm(SecurityGroup, { name: group.name });
  });
});
