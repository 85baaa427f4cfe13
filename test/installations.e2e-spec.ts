import { dataSourceOptions, loadConfig, ProjectsService } from '@stratus/core';
import { existingInstallationId, readStat } from '@stratus/providers';
import {
  createManaged,
  DatabaseCollection,
  DEMO_INSTANCE,
  freePortRange,
  HttpClient,
  resetTestInstallation,
  tearDownInstallationAt,
  testEnv,
  TestStack,
  useSuite,
  waitFor,
  waitForDatabase,
  waitForDatabaseGone,
  waitForInstance,
} from '@stratus/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

const ENGINES: Array<{ collection: DatabaseCollection; engine: string }> = [
  { collection: 'databases', engine: 'postgres' },
  { collection: 'cache', engine: 'redis' },
  { collection: 'analytics', engine: 'clickhouse' },
];
/** Of every kind, each installation creates and deletes this many. */
const CHURN = 10;
/** Of those, this many are deleted right after their create (the delete may meet a create that has not started). */
const DELETED_AT_ONCE = 3;

interface Installation {
  name: string;
  dataDir: string;
  api: HttpClient;
}

/** A process by pid and start time: a restart, even on the same pid, is another process. */
interface Running {
  what: string;
  pid: number;
  startTime: string;
}

function running(what: string, pidFile: string): Running {
  const pid = Number(readFileSync(pidFile, 'utf8').split(' ')[0]);
  return { what, pid, startTime: readStat(pid)?.startTime ?? 'gone' };
}

function stillRunning(r: Running): Running {
  return { what: r.what, pid: r.pid, startTime: readStat(r.pid)?.startTime ?? 'gone' };
}

/** One server of each engine and one instance, ready; their processes. */
async function witnesses(at: Installation): Promise<{ keys: string[]; processes: Running[] }> {
  const keys: string[] = [];
  const processes: Running[] = [];
  // One after another, so their ids follow each other.
  for (const { collection, engine } of ENGINES) {
    const created = await createManaged(at.api, collection, { name: `witness-${engine}` });
    await waitForDatabase(at.api, collection, created.body.id);
    const key = `${engine}-${created.body.id}`;
    keys.push(key);
    processes.push(running(`${at.name} ${key}`, join(at.dataDir, 'databases', key, 'pid')));
  }
  const instance = await at.api.post('/v1/instances', { name: 'witness', ...DEMO_INSTANCE, image_id: 'plain' });
  await waitForInstance(at.api, instance.body.id);
  processes.push(running(`${at.name} instance ${instance.body.id}`, join(at.dataDir, 'instances', instance.body.id, 'pid')));
  return { keys, processes };
}

/** Creates and deletes CHURN servers of every engine and CHURN instances, one kind at a time. */
async function churn(at: Installation): Promise<void> {
  for (const { collection } of ENGINES) {
    const ids = await Promise.all(
      Array.from({ length: CHURN }, async (_, i) => (await createManaged(at.api, collection, { name: `churn-${'abcdefghijklmnop'[i]}` })).body.id as number),
    );
    const [atOnce, later] = [ids.slice(0, DELETED_AT_ONCE), ids.slice(DELETED_AT_ONCE)];
    await Promise.all(atOnce.map((id) => at.api.delete(`/v1/${collection}/${id}`)));
    await Promise.all(later.map((id) => waitForDatabase(at.api, collection, id, ['ready'], { timeoutMs: 180_000, intervalMs: 200 })));
    await Promise.all(later.map((id) => at.api.delete(`/v1/${collection}/${id}`)));
    await Promise.all(ids.map((id) => waitForDatabaseGone(at.api, collection, id, 180_000)));
  }
  const instances = await Promise.all(
    Array.from(
      { length: CHURN },
      async (_, i) => (await at.api.post('/v1/instances', { name: `churn-${'abcdefghijklmnop'[i]}`, ...DEMO_INSTANCE, image_id: 'plain' })).body.id as string,
    ),
  );
  await Promise.all(instances.map((id) => waitForInstance(at.api, id, ['ACTIVE'], 180_000)));
  await Promise.all(instances.map((id) => at.api.delete(`/v1/instances/${id}`)));
  await waitFor(
    `${at.name}'s churn instances to go`,
    async () => {
      const listed = (await at.api.get('/v1/instances')).body as any[];
      return !listed.some((i) => instances.includes(i.id));
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
}

describe('two installations on one host', () => {
  const s = useSuite();
  let overrides: Record<string, string>;
  let second: TestStack;
  let secondDb: DataSource;
  let a: Installation;
  let b: Installation;

  beforeAll(async () => {
    const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
    const first = testEnv();
    const gateway = await freePortRange(10);
    // Everything an installation has of its own, beside this slot's.
    overrides = {
      DATABASE_URL: `${first.DATABASE_URL}_b`,
      QUEUE_PREFIX: `${first.QUEUE_PREFIX}-b`,
      DATA_DIR: `${first.DATA_DIR}-b`,
      LOCAL_ADDRESS_POOL: `127.${100 + slot}.0.0/16`,
      GATEWAY_PORT_RANGE: `${gateway.from}-${gateway.to}`,
    };
    await resetTestInstallation(overrides);
    second = await TestStack.start(overrides);
    const config = loadConfig(testEnv(overrides));
    secondDb = await new DataSource(dataSourceOptions(config, 'stratus-test-b')).initialize();
    const projects = new ProjectsService(secondDb, config);
    const project = await projects.createProject('second');
    const { key } = await projects.issueApiKey(project.id, 'user-second', 'test');
    a = { name: 'first', dataDir: s.stack.env.DATA_DIR, api: s.api };
    b = { name: 'second', dataDir: overrides.DATA_DIR, api: second.http.with({ 'x-api-key': key }) };
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await secondDb?.destroy();
    if (overrides) await tearDownInstallationAt(overrides.DATA_DIR);
  });

  it("a new installation's first instance meets the packet filter's boundary from its first packet", async () => {
    // Its accounts were removed at the end of the last run: this installation makes its instances group anew.
    const probe = (port: number) => `if timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null; then echo open; else echo refused; fi`;
    const userData = `#!/bin/sh\n{ ${probe(5432)}; ${probe(Number(second.env.API_PORT))}; } > "$HOME/first-packets.txt"\n`;
    const created = await b.api.post('/v1/instances', { name: 'first-packets', ...DEMO_INSTANCE, image_id: 'plain', user_data: userData });
    expect(created.status).toBe(202);
    await waitForInstance(b.api, created.body.id);
    // user_data ran before the instance was ACTIVE: the control plane's PostgreSQL refused, the public API answered.
    expect(readFileSync(join(b.dataDir, 'instances', created.body.id, 'home', 'first-packets.txt'), 'utf8').split('\n')).toEqual(['refused', 'open', '']);
  });

  it('each creating and deleting servers of every engine and instances: neither stops, restarts or adopts what the other runs', async () => {
    const first = await witnesses(a);

    // The second installation numbers its servers as the first does: its first ones get the
    // first's witnesses' keys, and the host cannot run them (they end in error and are removed).
    const sequence = async (next: number) => secondDb.query(`ALTER SEQUENCE managed_databases_id_seq RESTART WITH ${next}`);
    const [pgKey, redisKey] = first.keys;
    await sequence(Number(pgKey.split('-')[1]));
    const unrunnable = await createManaged(b.api, 'databases', { name: 'twin-pg', extensions: ['vector'] });
    await sequence(Number(redisKey.split('-')[1]));
    const unrunnableCache = await createManaged(b.api, 'cache', { name: 'twin-cache', version: '6' });
    expect([`postgres-${unrunnable.body.id}`, `redis-${unrunnableCache.body.id}`]).toEqual([pgKey, redisKey]);
    await waitForDatabase(b.api, 'databases', unrunnable.body.id, ['error']);
    await waitForDatabase(b.api, 'cache', unrunnableCache.body.id, ['error']);
    await sequence(Number(first.keys[2].split('-')[1]) + 1);

    const secondWitnesses = await witnesses(b);
    const [idA, idB] = [existingInstallationId(a.dataDir), existingInstallationId(b.dataDir)];
    expect(idA).toMatch(/^[0-9a-f]{8}$/);
    expect(idB).toMatch(/^[0-9a-f]{8}$/);
    expect(idA).not.toBe(idB);
    const before = [...first.processes, ...secondWitnesses.processes];
    expect(before.every((r) => r.startTime !== 'gone')).toBe(true);

    await Promise.all([churn(a), churn(b)]);

    // Every witness is the same process as before (same pid, same start time), and each installation still calls its own ready.
    expect(before.map(stillRunning)).toEqual(before);
    for (const at of [a, b]) {
      for (const { collection } of ENGINES) {
        const listed = (await at.api.get(`/v1/${collection}`)).body as any[];
        expect(listed.filter((d) => d.name.startsWith('witness-')).map((d) => d.status)).toEqual(['ready']);
      }
    }
    // Two installations' churn on a loaded 2-core machine: minutes, not the default two.
  }, 900_000);
});
