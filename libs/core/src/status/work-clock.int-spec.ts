import { createTenant, dropDatabase, Tenant, testEnv } from '@stratus/testing';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app.config';
import { migrate } from '../setup/setup';
import { beatWorkClock, pastBuildDeadline } from './work-clock';

const MINUTE = 60_000;

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

  /** An instance row `age` ms old in `status`, its build deadline `deadline` ms from now. */
  async function instance(name: string, status: string, age: number, deadline: number): Promise<string> {
    const [{ id }] = await ds.query(
      `INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, status, created_at, build_deadline)
       VALUES ($1, $2, $3, 'plain', 'm1.small', 'private', 'default', '{}', $4, now() - make_interval(secs => $5), now() + make_interval(secs => $6)) RETURNING id`,
      [tenant.projectId, tenant.userId, name, status, age / 1000, deadline / 1000],
    );
    return id;
  }
  /** Milliseconds from now to the row's deadline. */
  const left = async (id: string) => Number((await ds.query(`SELECT extract(epoch FROM build_deadline - now()) * 1000 AS ms FROM instances WHERE id = $1`, [id]))[0].ms);
  const standStill = (ms: number) => ds.query(`UPDATE work_clock SET at = now() - make_interval(secs => $1)`, [ms / 1000]);

  beforeEach(async () => {
    await ds.query(`DELETE FROM instances`);
    await beatWorkClock(ds);
  });

  it('moves nothing while the workers beat it', async () => {
    const id = await instance('beating', 'BUILD', 20 * MINUTE, -MINUTE);
    expect(await beatWorkClock(ds)).toEqual({ stoodStillMs: 0, moved: 0 });
    expect(await pastBuildDeadline(ds, 'instances', id)).toBe(true);
  });

  it('after a stand-still moves each building deadline on by it, or by the row age if younger', async () => {
    const old = await instance('old', 'BUILD', 20 * MINUTE, -MINUTE);
    const young = await instance('young', 'BUILD', 2 * MINUTE, 13 * MINUTE);
    const active = await instance('active', 'ACTIVE', 20 * MINUTE, -MINUTE);
    await standStill(10 * MINUTE);

    const beat = await beatWorkClock(ds);
    expect(beat.stoodStillMs).toBeGreaterThanOrEqual(10 * MINUTE);
    expect(beat.stoodStillMs).toBeLessThan(11 * MINUTE);
    expect(beat.moved).toBe(2);
    // Old: a minute past, ten more: nine left. Young: made two minutes ago, so moved on by two.
    expect(await left(old)).toBeGreaterThan(8.9 * MINUTE);
    expect(await left(old)).toBeLessThan(9.1 * MINUTE);
    expect(await left(young)).toBeGreaterThan(14.9 * MINUTE);
    expect(await left(young)).toBeLessThan(15.1 * MINUTE);
    expect(await pastBuildDeadline(ds, 'instances', old)).toBe(false);
    // A row that is not building keeps its deadline.
    expect(await pastBuildDeadline(ds, 'instances', active)).toBe(true);

    // The next beat finds the clock moved: nothing more.
    expect(await beatWorkClock(ds)).toEqual({ stoodStillMs: 0, moved: 0 });
    expect(await left(old)).toBeLessThan(9.1 * MINUTE);
  });

  it('applies one stand-still once when workers beat at the same time', async () => {
    const id = await instance('raced', 'BUILD', 20 * MINUTE, -MINUTE);
    await standStill(10 * MINUTE);
    const beats = await Promise.all(Array.from({ length: 8 }, () => beatWorkClock(ds)));
    expect(beats.filter((b) => b.stoodStillMs > 0)).toHaveLength(1);
    expect(await left(id)).toBeLessThan(9.1 * MINUTE);
    expect(await left(id)).toBeGreaterThan(8.9 * MINUTE);
  });

  it('moves the deadlines of clusters and managed databases too (none building here: their statements run)', async () => {
    await standStill(MINUTE);
    expect(await beatWorkClock(ds)).toMatchObject({ moved: 0 });
    expect(await pastBuildDeadline(ds, 'clusters', '00000000-0000-0000-0000-000000000000')).toBe(false);
    expect(await pastBuildDeadline(ds, 'databases', 1)).toBe(false);
  });
});
