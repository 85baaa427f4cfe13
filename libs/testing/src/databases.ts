import { DatabaseRequest, ProviderName } from '@stratus/core';
import { DATABASE_MARKER, killTree, postmasterPid, readStat, VERIFIER_METADATA_KEY } from '@stratus/providers';
import { QUEUES, redisConnection } from '@stratus/queue';
import { Queue } from 'bullmq';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { markedLeadersUnder } from './processes';
import { connect } from 'node:net';
import { dirname, join, sep } from 'node:path';
import { DataSource } from 'typeorm';
import { catalogReferences } from './catalog-fixtures';
import { HttpClient } from './http-client';
import { testbedDatabaseServer } from './openstack-testbed';
import { providerUnderTest } from './provider-under-test';
import { testEnv } from './test-env';
import { waitFor, waitForState } from './wait';
import { waitForDrain } from './queue-drain';
import { TestStack } from './stack';

/**
 * Catalog references every database create needs, from the catalog of the
 * provider under test (catalogFixtures): read when spread, as DEMO_INSTANCE's.
 */
export const DB_PLACEMENT = catalogReferences({ flavor_id: 'databaseFlavor', network_id: 'network', keypair_name: 'keypair' });

/**
 * What status_reason says on a provider that builds no ha database of the
 * engine when one is asked for: the fake provider simulates none, the
 * openstack one builds PostgreSQL's only. null where it is built: the local
 * provider runs both (databases-ha.e2e-spec.ts, analytics-ha.e2e-spec.ts),
 * the openstack one ha PostgreSQL (test/openstack/databases.os-spec.ts).
 */
export function haRefusal(engine: 'postgres' | 'clickhouse', provider: ProviderName = providerUnderTest()): RegExp | null {
  switch (provider) {
    case 'local':
      return null;
    case 'fake':
      return /high availability \(ha: true\) is not simulated by the fake provider/;
    case 'openstack':
      return engine === 'postgres' ? null : /high availability \(ha: true\) of clickhouse is not built on the openstack provider/;
  }
}

/** Whether something runs behind database server `key` on the provider under test: its process group (local), its Nova server (openstack). */
export async function databaseBacked(dataDir: string, key: string): Promise<boolean> {
  if (providerUnderTest() === 'openstack') return (await testbedDatabaseServer(key)) !== null;
  return databaseServersUnder(dataDir).has(key);
}

/**
 * What Nova keeps of ready database `ready` (server `key`), in place of a
 * login on the testbed (no data path): one server, on the database's
 * address, whose metadata carries the verifier the row holds now, and
 * whose metadata and user_data (readable by the cloud's admins and from
 * the server) hold none of `passwords`. Openstack provider only.
 */
export async function expectTestbedCredential(db: DataSource, ready: { id: number; floating_ip: string }, key: string, passwords: string[]): Promise<void> {
  const server = await testbedDatabaseServer(key);
  if (!server) throw new Error(`no Nova server for database server ${key}`);
  expect(
    Object.values(server.addresses ?? {})
      .flat()
      .map((a) => a.addr),
  ).toEqual([ready.floating_ip]);
  const [row] = await db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [ready.id]);
  expect(server.metadata?.[VERIFIER_METADATA_KEY]).toBe(row.password_verifier);
  for (const text of [JSON.stringify(server.metadata), server.userData]) for (const password of passwords) expect(text).not.toContain(password);
}

/** A PostgreSQL 16 server as POST /v1/databases asks for it, defaults applied: what ManagedDatabaseLifecycle.create takes in worker specs. */
export function postgresRequest(name: string, fields: Partial<DatabaseRequest> = {}): DatabaseRequest {
  return {
    name,
    dbName: 'app',
    dbUser: 'appuser',
    password: undefined,
    version: '16',
    extensions: [],
    superuser: false,
    ha: false,
    flavorId: 'db.small',
    networkId: 'private',
    keypairName: 'default',
    securityGroupNames: undefined,
    ...fields,
  };
}

/** The collection of each engine. */
export type DatabaseCollection = 'databases' | 'cache' | 'analytics' | 'relational-databases';

/**
 * POST /v1/<collection> with the catalog placement filled in; records the
 * password it was issued (for the leak check) and insists on 202.
 */
export async function createManaged(client: HttpClient, collection: DatabaseCollection, body: Record<string, unknown>) {
  const res = await client.post(`/v1/${collection}`, { ...DB_PLACEMENT, ...body });
  recordIssuedPassword(res.body?.password ?? res.body?.db_password);
  if (res.status !== 202) throw new Error(`POST /v1/${collection} answered ${res.status}: ${res.text}`);
  return res;
}

/** Polls GET /v1/<collection>/:id until the status is one of `statuses`. */
export async function waitForDatabase(
  client: HttpClient,
  collection: DatabaseCollection,
  id: number,
  statuses: string[] = ['ready'],
  // As long as a boot may take on the testbed (its INSTANCE_BOOT_TIMEOUT_MS), on a machine also running other suites.
  { timeoutMs = 180_000, intervalMs = 50 } = {},
): Promise<any> {
  return waitForState(
    `${collection}/${id} to reach ${statuses.join('/')}`,
    async () => {
      // Any answer is kept, so a timeout shows a 404's envelope as well as a server's last status.
      return (await client.get(`/v1/${collection}/${id}`)).body;
    },
    (db) => statuses.includes(db.status),
    { timeoutMs, intervalMs, failed: (db) => db.status === 'error' },
  );
}

/**
 * Polls until the server is gone from the collection (GET answers 404).
 * The bound is generous: on the OpenStack testbed a delete waits for Nova
 * to let the server go, which a loaded machine stretches past a minute.
 */
export async function waitForDatabaseGone(client: HttpClient, collection: DatabaseCollection, id: number, timeoutMs = 180_000): Promise<void> {
  await waitFor(`${collection}/${id} to be gone`, async () => (await client.get(`/v1/${collection}/${id}`)).status === 404, {
    timeoutMs,
    intervalMs: 200,
  });
}

/**
 * Every password the API issued during the test run, kept outside the data
 * the leak check reads, so the last suite can look for each of them.
 */
export function issuedPasswordsFile(): string {
  return join(testEnv().DATA_DIR, 'test-artifacts', 'issued-passwords.txt');
}

export function recordIssuedPassword(password: unknown): void {
  if (typeof password !== 'string' || !password) return;
  mkdirSync(dirname(issuedPasswordsFile()), { recursive: true });
  appendFileSync(issuedPasswordsFile(), password + '\n');
}

export function readIssuedPasswords(): string[] {
  try {
    return [...new Set(readFileSync(issuedPasswordsFile(), 'utf8').split('\n').filter(Boolean))];
  } catch {
    return [];
  }
}

/**
 * Database server process groups under `<dir>/databases/`, by the server
 * folder they run in: a spare claimed by a create runs in the folder of the
 * server it became, while its marker still names the spare.
 */
export function databaseServersUnder(dir: string): Map<string, number> {
  const servers = join(dir, 'databases') + sep;
  const found = new Map<string, number>();
  for (const pid of [...markedLeadersUnder(DATABASE_MARKER, dir, servers).values()].flat()) {
    try {
      found.set(readlinkSync(`/proc/${pid}/cwd`).slice(servers.length).split(sep)[0], pid);
    } catch {
      // gone
    }
  }
  return found;
}

/**
 * Waits (bounded) until the stack's worker holds a started spare Redis no
 * create has claimed yet (the local provider's DATABASE_SPARES), so that
 * the caller's next cache claims it. A create an earlier suite left queued
 * is taken up as the worker starts and may claim the first spare: the
 * databases queue is drained first. Then the worker's log must show a
 * spare `ready for a create to claim` and not `claimed` since, its folder
 * naming the worker's pid (the log is shared by every stack of the slot).
 * (Counting clients on the spare's socket was not enough: the worker's
 * link counts from its connect, before its first PING is answered and the
 * spare is pooled.)
 */
export async function spareRedisHeld(stack: TestStack, timeoutMs = 180_000): Promise<void> {
  const queue = new Queue(QUEUES.databases, { connection: redisConnection(stack.env.REDIS_URL), prefix: stack.env.QUEUE_PREFIX });
  try {
    await waitForDrain([queue], { timeoutMs });
  } finally {
    await queue.close();
  }
  const workerPid = stack.process('worker')!.pid!;
  const ours = new RegExp(`"spare":"(spare-redis-${workerPid}-[^"]+)"`);
  await waitFor(
    `the worker's (pid ${workerPid}) spare Redis to be ready and unclaimed`,
    () => {
      const held = new Set<string>();
      for (const line of stack.logLines()) {
        const spare = ours.exec(line)?.[1];
        if (spare && line.includes('spare database server ready')) held.add(spare);
        else if (spare && line.includes('spare database server claimed')) held.delete(spare);
      }
      return held.size > 0;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/**
 * The lines of the slot's worker log that mention spares or `key`: what
 * tells why a create did not get a spare, for a failure message.
 */
export function spareLog(stack: TestStack, key: string): string {
  return stack
    .logLines()
    .filter((line) => /spare/i.test(line) || line.includes(`"${key}"`))
    .slice(-40)
    .join('\n');
}

/** Ends every database server a test run left under `dir` (only ours: matched by folder, or by its pid file there); how many it ended. */
export function killDatabaseServersUnder(dir: string): number {
  const servers = join(dir, 'databases');
  // Every marked leader, not one per server: an ha database runs several (etcd, each member's Patroni and postmaster).
  const pids = new Set([...markedLeadersUnder(DATABASE_MARKER, dir, servers + sep).values()].flat());
  const postmasters: number[] = [];
  for (const key of existsSync(servers) ? readdirSync(servers) : []) {
    try {
      const [pid, startTime] = readFileSync(join(servers, key, 'pid'), 'utf8')
        .trim()
        .split(' ');
      if (readStat(Number(pid))?.startTime === startTime) pids.add(Number(pid));
    } catch {
      // no pid file, or the process is gone
    }
    // An ha member's postmaster leads no group (Patroni starts it through a helper's session) and rewrites its marker away: found by its data folder.
    let members: string[] = [];
    try {
      members = readdirSync(join(servers, key)).filter((name) => name.startsWith('member-'));
    } catch {
      // not a folder, or removed meanwhile
    }
    for (const member of members) {
      const postmaster = postmasterPid(join(servers, key, member, 'data'));
      if (postmaster !== null) postmasters.push(postmaster);
    }
  }
  // With what each started: a postmaster's backends are each in a session of their own.
  return [...pids].filter((pid) => killTree(pid, pid)).length + postmasters.filter((pid) => killTree(pid)).length;
}

/** Resolves with the socket error code of a TCP connect to host:port ('ECONNREFUSED' once a server is gone), or 'connected'. */
export function tcpConnectOutcome(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
  });
}

/**
 * POST `body` (sent as is, undefined fields left out) to `/v1/<collection>`:
 * a 400 in the error envelope whose message contains `message`, and no row
 * made. Rows being deleted are not counted: a delete an earlier case started
 * may end meanwhile (on OpenStack, seconds later), but a row never comes
 * back to being counted once it is deleting.
 */
export async function expectCreateRefused(api: HttpClient, db: DataSource, collection: string, body: Record<string, unknown>, message: string): Promise<void> {
  const rows = async () => (await db.query(`SELECT count(*)::int AS n FROM managed_databases WHERE status <> 'deleting'`))[0].n as number;
  const before = await rows();
  const res = await api.post(`/v1/${collection}`, JSON.stringify(body));
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('bad_request');
  expect(res.body.error.message).toContain(message);
  expect(await rows()).toBe(before);
}
