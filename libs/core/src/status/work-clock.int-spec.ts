import { createTenant, dropDatabase, Tenant, testEnv } from '@stratus/testing';
import { DataSource, ObjectLiteral } from 'typeorm';
import { Cluster } from '../clusters/cluster.entity';
import { loadConfig } from '../config/app.config';
import { ManagedDatabase } from '../databases/managed-database.entity';
import { Instance } from '../instances/instance.entity';
import { migrate } from '../setup/setup';
import { beatWorkClock, BuildDeadline, pastBuildDeadline, standStillsSince, workedMs } from './work-clock';

const MINUTE = 60_000;

/** Each table with a build deadline: a building and a settled status, its deadline's column, and what else a row needs. */
const KINDS: Record<BuildDeadline, { entity: new () => ObjectLiteral; building: string; settled: string; column: string; fields: (name: string) => ObjectLiteral }> = {
  instances: {
    entity: Instance,
    building: 'BUILD',
    settled: 'ACTIVE',
    column: 'build_deadline',
    fields: () => ({ imageId: 'plain', flavorId: 'm1.small', networkId: 'private', keypairName: 'default', securityGroupIds: [] }),
  },
  clusters: {
    entity: Cluster,
    building: 'CREATE_IN_PROGRESS',
    settled: 'CREATE_COMPLETE',
    column: 'build_deadline',
    fields: (name) => ({
      imageId: 'plain',
      flavorId: 'm1.small',
      networkId: 'private',
      subnetId: 'private-subnet',
      keyName: 'default',
      port: 3000,
      dnsName: `${name}.clusters.test`,
      minSize: 1,
      maxSize: 3,
      desiredSize: 1,
      scaleOutThreshold: 0.8,
      scaleInThreshold: 0.2,
    }),
  },
  databases: {
    entity: ManagedDatabase,
    building: 'provisioning',
    settled: 'ready',
    column: 'provision_deadline',
    fields: () => ({
      engine: 'postgresql',
      passwordVerifier: 'not-a-verifier',
      flavorId: 'm1.small',
      networkId: 'private',
      keypairName: 'default',
      securityGroupIds: [],
      port: 5432,
    }),
  },
};

/** beatWorkClock on a throwaway database migrated as an installation's is. */
describe('the work clock', () => {
  const url = new URL(testEnv().DATABASE_URL);
  url.pathname = `/stratus_work_clock_${process.pid}`;
  let ds: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    ds = await migrate(loadConfig({ ...testEnv(), DATABASE_URL: url.toString() }));
    tenant = await createTenant(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(url.toString());
  });

  /** A row of `kind` `age` ms old in `status`, its deadline `deadline` ms from now; its id. */
  async function row(kind: BuildDeadline, name: string, status: string, age: number, deadline: number): Promise<string | number> {
    const { entity, column, fields } = KINDS[kind];
    const { id } = await ds.getRepository(entity).save({ projectId: tenant.projectId, userId: tenant.userId, name, status, ...fields(name) });
    const table = ds.getMetadata(entity).tableName;
    await ds.query(`UPDATE ${table} SET created_at = now() - make_interval(secs => $2), ${column} = now() + make_interval(secs => $3) WHERE id = $1`, [
      id,
      age / 1000,
      deadline / 1000,
    ]);
    return id;
  }
  /** Milliseconds from now to the row's deadline. */
  async function left(kind: BuildDeadline, id: string | number): Promise<number> {
    const { entity, column } = KINDS[kind];
    const [{ ms }] = await ds.query(`SELECT extract(epoch FROM ${column} - now()) * 1000 AS ms FROM ${ds.getMetadata(entity).tableName} WHERE id = $1`, [id]);
    return Number(ms);
  }
  const standStill = (ms: number) => ds.query(`UPDATE work_clock SET at = now() - make_interval(secs => $1)`, [ms / 1000]);

  beforeEach(async () => {
    for (const table of ['instances', 'clusters', 'managed_databases', 'work_clock_stand_stills']) await ds.query(`DELETE FROM ${table}`);
    await beatWorkClock(ds);
  });

  it('moves nothing while the workers beat it', async () => {
    const id = await row('instances', 'beating', 'BUILD', 20 * MINUTE, -MINUTE);
    expect(await beatWorkClock(ds)).toEqual({ stoodStillMs: 0, moved: 0 });
    expect(await pastBuildDeadline(ds, 'instances', id)).toBe(true);
  });

  it.each(Object.keys(KINDS) as BuildDeadline[])('after a stand-still moves each building %s deadline on by it, or by the row age if younger', async (kind) => {
    const { building, settled } = KINDS[kind];
    const old = await row(kind, `${kind}-old`, building, 20 * MINUTE, -MINUTE);
    const young = await row(kind, `${kind}-young`, building, 2 * MINUTE, 13 * MINUTE);
    const done = await row(kind, `${kind}-done`, settled, 20 * MINUTE, -MINUTE);
    await standStill(10 * MINUTE);

    const beat = await beatWorkClock(ds);
    expect(beat.stoodStillMs).toBeGreaterThanOrEqual(10 * MINUTE);
    expect(beat.stoodStillMs).toBeLessThan(11 * MINUTE);
    expect(beat.moved).toBe(2);
    // Old: a minute past, ten more: nine left. Young: made two minutes ago, so moved on by two.
    expect(await left(kind, old)).toBeGreaterThan(8.9 * MINUTE);
    expect(await left(kind, old)).toBeLessThan(9.1 * MINUTE);
    expect(await left(kind, young)).toBeGreaterThan(14.9 * MINUTE);
    expect(await left(kind, young)).toBeLessThan(15.1 * MINUTE);
    expect(await pastBuildDeadline(ds, kind, old)).toBe(false);
    // A row that is not building keeps its deadline.
    expect(await pastBuildDeadline(ds, kind, done)).toBe(true);

    // The next beat finds the clock moved: nothing more.
    expect(await beatWorkClock(ds)).toEqual({ stoodStillMs: 0, moved: 0 });
    expect(await left(kind, old)).toBeLessThan(9.1 * MINUTE);
  });

  it('applies one stand-still once when workers beat at the same time', async () => {
    const id = await row('instances', 'raced', 'BUILD', 20 * MINUTE, -MINUTE);
    await standStill(10 * MINUTE);
    const beats = await Promise.all(Array.from({ length: 8 }, () => beatWorkClock(ds)));
    expect(beats.filter((b) => b.stoodStillMs > 0)).toHaveLength(1);
    expect(await standStillsSince(ds, new Date(Date.now() - 11 * MINUTE))).toHaveLength(1);
    expect(await left('instances', id)).toBeLessThan(9.1 * MINUTE);
    expect(await left('instances', id)).toBeGreaterThan(8.9 * MINUTE);
  });

  it('keeps each stand-still, so a wait measured from the past can leave it out', async () => {
    await beatWorkClock(ds);
    expect(await standStillsSince(ds, new Date(0))).toEqual([]);
    await standStill(10 * MINUTE);
    const { stoodStillMs } = await beatWorkClock(ds);
    const [kept, ...more] = await standStillsSince(ds, new Date(Date.now() - 20 * MINUTE));
    expect(more).toEqual([]);
    // Its length, within what milliseconds from PostgreSQL's microseconds may lose.
    expect(kept.to - kept.from).toBeGreaterThanOrEqual(stoodStillMs - 5);
    expect(kept.to - kept.from).toBeLessThanOrEqual(stoodStillMs + 5);
    expect(Date.now() - kept.to).toBeLessThan(MINUTE);
    // Twenty minutes, ten of them stood still.
    const worked = workedMs(Date.now() - 20 * MINUTE, Date.now(), [kept]);
    expect(worked).toBeGreaterThan(9.9 * MINUTE);
    expect(worked).toBeLessThan(10.1 * MINUTE);
    // Asked from after it ended: none.
    expect(await standStillsSince(ds, new Date(kept.to + 1))).toEqual([]);
    // Beats without a gap keep nothing more.
    await beatWorkClock(ds);
    expect(await standStillsSince(ds, new Date(0))).toHaveLength(1);
  });
});
