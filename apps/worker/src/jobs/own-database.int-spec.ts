import { OwnPostgres, testConfig } from '@stratus/testing';
import { Client } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import { OwnDatabase } from './own-database';

/** What a job's failure looks like to pg: a refused connect, a server going away, a statement refused. */
function refusedConnect(port: number): Error {
  return Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED', syscall: 'connect', address: '127.0.0.1', port });
}
const ADMIN_SHUTDOWN = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
const NOT_YET_ACCEPTING = Object.assign(new Error('the database system is not yet accepting connections'), { code: '57P03', severity: 'FATAL' });
const CONSTRAINT = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', severity: 'ERROR' });

/** Against a PostgreSQL of the spec's own, crashed and started again as in an outage of the control plane's. */
describe('OwnDatabase', () => {
  let pg: OwnPostgres;
  let dataSource: DataSource;
  let own: OwnDatabase;

  beforeAll(async () => {
    pg = await OwnPostgres.start();
    const config = testConfig({ DATABASE_URL: pg.url('postgres') });
    dataSource = await new DataSource({ type: 'postgres', url: config.DATABASE_URL, extra: { max: 2, connectionTimeoutMillis: 5_000 } }).initialize();
    own = new OwnDatabase(dataSource, config);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await pg?.destroy();
  });

  afterEach(() => jest.restoreAllMocks());

  it('ours answering: a failure that only looks like it (another PostgreSQL shutting down, a refused connect elsewhere) spends its attempt', async () => {
    expect(await own.waitFor(ADMIN_SHUTDOWN)).toBeNull();
    expect(await own.waitFor(refusedConnect(pg.port + 1))).toBeNull();
    expect(await own.waitFor(CONSTRAINT)).toBeNull();
  });

  it('ours answering: a statement of ours that failed on it as it came back looks again at once, without an attempt', async () => {
    // The worker's statements come wrapped (TypeORM's, the hot pool's): they failed on ours, whoever answers now.
    expect(await own.waitFor(new QueryFailedError('SELECT 1', undefined, NOT_YET_ACCEPTING))).toBe(1_000);
    expect(await own.waitFor(NOT_YET_ACCEPTING)).toBeNull();
    expect(await own.waitFor(new QueryFailedError('INSERT', undefined, CONSTRAINT))).toBeNull();
  });

  it('ours out of reach: the job waits a second, longer as the outage goes on, at most 15 s, and a later outage starts again at a second', async () => {
    // What a job of ours meets first: a pooled connection the server ends.
    const client = new Client({ connectionString: pg.url('postgres') });
    client.on('error', () => undefined);
    await client.connect();
    const ended = client.query('SELECT pg_sleep(30)').catch((err: unknown) => err);
    await pg.crash();
    const failure = await ended;
    await client.end().catch(() => undefined);

    const start = Date.now();
    const now = jest.spyOn(Date, 'now');
    const at = async (ms: number, err: unknown) => {
      now.mockReturnValue(start + ms);
      return own.waitFor(err);
    };
    expect(await at(0, failure)).toBe(1_000);
    expect(await at(10_000, refusedConnect(pg.port))).toBe(5_000);
    expect(await at(40_000, refusedConnect(pg.port))).toBe(15_000);
    expect(await at(40_500, CONSTRAINT)).toBeNull();
    // Nothing failed on it for a while: this is a new outage.
    expect(await at(80_000, refusedConnect(pg.port))).toBe(1_000);

    await pg.start();
    // Back between a job's failure and the asking: ours was away a moment ago, so the job looks again at once.
    expect(await at(81_000, NOT_YET_ACCEPTING)).toBe(1_000);
    expect(await at(81_000, refusedConnect(pg.port))).toBe(1_000);
    // Long after, a failure like it is not taken for ours.
    expect(await at(80_000 + 30_001, NOT_YET_ACCEPTING)).toBeNull();
  });
});
