import { DATABASE_MARKER } from '@stratus/providers';
import {
  accepts,
  createManaged,
  databaseServersUnder,
  listeningPortsOf,
  markedLeadersUnder,
  recordIssuedPassword,
  useSuite,
  waitFor,
  waitForDatabase,
  waitForDatabaseGone,
} from '@stratus/testing';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join, sep } from 'node:path';

/**
 * One query over ClickHouse's HTTP interface, on a connection of its own (as
 * a client that reconnects would: a kept-alive connection to a member that
 * died fails whatever the balancer does).
 */
function query(address: string, user: string, password: string, sql: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: address,
        port: 8123,
        method: 'POST',
        path: '/',
        agent: false,
        timeout: 30_000,
        headers: { authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64') },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(sql);
  });
}

/** The process is gone (or a zombie: dead, not yet reaped by the worker). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * High-availability analytics on the local provider: three ClickHouse
 * members and ZooKeeper behind the edge's HAProxy, one database for the
 * whole suite (an ha database takes tens of seconds to come up). Members
 * die for real: SIGKILL, and a data folder removed.
 */
describe('high-availability analytics (ha: true)', () => {
  const s = useSuite({}, ['api', 'worker', 'edge']);
  let ready: any;
  let password: string;
  let members: string[];

  const get = async () => (await s.api.get(`/v1/analytics/${ready.id}`)).body;
  const serversDir = () => join(s.stack.env.DATA_DIR, 'databases');
  const through = (sql: string) => query(ready.floating_ip, ready.db_user, password, sql);
  const on = (n: number, sql: string) => query(members[n], ready.db_user, password, sql);
  /** The process-group leader of member n's server. */
  const memberPid = (n: number): number | undefined => markedLeadersUnder(DATABASE_MARKER, s.stack.env.DATA_DIR, serversDir() + sep).get(`clickhouse-${ready.id}.member-${n}`)?.[0];

  /** Healthy again without help: three members up, not degraded. */
  const healthy = () =>
    waitFor(
      'the analytics database to be healthy again',
      async () => {
        const body = await get();
        return body.status === 'ready' && body.degraded === false && body.members.every((m: any) => m.health === 'up') ? body : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

  /** Member n holds `count` rows of events (it caught up), asked directly. */
  const holds = (n: number, count: number) =>
    waitFor(
      `member ${n} to hold ${count} rows`,
      async () => {
        const res = await on(n, 'SELECT count() FROM events').catch(() => null);
        return res?.status === 200 && res.text === `${count}\n` ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

  beforeAll(async () => {
    const created = await createManaged(s.api, 'analytics', { name: 'replicated', ha: true });
    expect(created.status).toBe(202);
    password = created.body.db_password;
    recordIssuedPassword(password);
    ready = await waitForDatabase(s.api, 'analytics', created.body.id, ['ready', 'error'], { timeoutMs: 240_000, intervalMs: 250 });
    expect(ready).toMatchObject({ status: 'ready', status_reason: null, ha: true, footprint: { servers: 3 } });
    ready = await healthy();
    members = ready.members.map((m: any) => m.address);
  }, 300_000);

  it('reports three replicas, and a table made ON CLUSTER through the address holds on each member what was inserted there', async () => {
    expect(ready.members).toEqual(members.map((address) => ({ address, role: 'replica', health: 'up', lag: null })));
    expect(new Set([ready.floating_ip, ...members]).size).toBe(4);
    const created = await through(`CREATE TABLE events ON CLUSTER stratus (n UInt32) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/events', '{replica}') ORDER BY n`);
    expect(created.status).toBe(200);
    expect(await through('INSERT INTO events SELECT number FROM system.numbers LIMIT 100')).toMatchObject({ status: 200 });
    for (const n of [0, 1, 2]) await holds(n, 100);
    expect(await on(0, "SELECT count() FROM system.clusters WHERE cluster = 'stratus'")).toEqual({ status: 200, text: '3\n' });
    expect((await on(1, 'SELECT 1')).status).toBe(200);
    expect((await query(members[2], ready.db_user, 'wrong-password', 'SELECT 1')).text).toMatch(/Wrong password/);
  });

  it('ZooKeeper and the members listen on their ports only', async () => {
    const zookeeper = markedLeadersUnder(DATABASE_MARKER, s.stack.env.DATA_DIR, serversDir() + sep).get(`clickhouse-${ready.id}.zookeeper`)?.[0];
    expect(listeningPortsOf(zookeeper!)).toEqual([2181]);
    for (const n of [0, 1, 2]) expect(listeningPortsOf(memberPid(n)!).sort((a, b) => a - b)).toEqual([8123, 9001 + n, 9009]);
  });

  it("puts ZooKeeper and the interserver ports in the packet filter as the members' private peers", async () => {
    const table = `stratus_${readFileSync(join(s.stack.env.DATA_DIR, 'installation-id'), 'utf8').trim()}`;
    const wanted = [`${ready.floating_ip} . 2181`, ...members.map((m) => `${m} . 9009`)];
    await waitFor(
      'the packet filter to hold the peers',
      async () => {
        const listed = ['server_peers', 'server_private'].map((set) => execFileSync('nft', ['list', 'set', 'inet', table, set]).toString());
        return listed.every((l) => wanted.every((w) => l.includes(w))) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });

  it('a member SIGKILLed: queries through the address never fail, and it is started again and catches up', async () => {
    const victim = memberPid(1);
    expect(victim).toBeDefined();
    const failures: string[] = [];
    let total = 100;
    // What get says meanwhile: the member down, the database degraded (while the loop below is served).
    let watching = true;
    const seen: any[] = [];
    const watcher = (async () => {
      while (watching) {
        seen.push(await get().catch(() => null));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      // Sequential, in this process: the member dies between two queries (a query in flight on a member that dies
      // fails whatever balances it, as over TCP anywhere; a client retries it).
      for (let i = 0; i < 40; i++) {
        if (i === 5) {
          process.kill(victim!, 'SIGKILL');
          // Gone once its port refuses: a killed server's threads close its sockets a moment after its main one is dead.
          await waitFor('the member to be gone', async () => (gone(victim!) && !(await accepts(members[1], 8123)) ? true : undefined), { timeoutMs: 10_000, intervalMs: 2 });
        }
        const res = await through(i % 2 ? 'SELECT count() FROM events' : `INSERT INTO events VALUES (${1000 + i})`).catch((err) => ({ status: 0, text: String(err) }));
        if (res.status !== 200) failures.push(`${i}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (i % 2 === 0) total++;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(failures).toEqual([]);
      await waitFor('member 1 to run again', async () => (memberPid(1) !== undefined && memberPid(1) !== victim ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
      await holds(1, total);
      await healthy();
    } finally {
      watching = false;
      await watcher;
    }
    expect(seen.some((b) => b?.status === 'ready' && b.degraded === true && b.members[1].health === 'down' && b.members[0].health === 'up')).toBe(true);
    // Replication lag in seconds, now that a replicated table exists (a member just started says it once it has replayed an insert).
    await waitFor('every member to tell its lag', async () => ((await get()).members.every((m: any) => m.lag?.unit === 'seconds') ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  });

  it('a member whose data folder is gone is laid out again and fetches the tables from the others', async () => {
    const victim = memberPid(2);
    expect(victim).toBeDefined();
    const data = join(serversDir(), `clickhouse-${ready.id}`, 'member-2', 'data');
    expect(existsSync(join(data, 'metadata'))).toBe(true);
    const total = Number((await on(0, 'SELECT count() FROM events')).text);
    await holds(1, total);
    // Gone before the kill: the reconciler starts the member again at once.
    rmSync(data, { recursive: true, force: true });
    process.kill(victim!, 'SIGKILL');
    await holds(2, total);
    await healthy();
  });

  it('ZooKeeper SIGKILLed: reads through the address go on, it is started again, and writes work again', async () => {
    const parts = () => markedLeadersUnder(DATABASE_MARKER, s.stack.env.DATA_DIR, serversDir() + sep);
    const victim = parts().get(`clickhouse-${ready.id}.zookeeper`)![0];
    const before = Number((await on(0, 'SELECT count() FROM events')).text);
    for (const n of [1, 2]) await holds(n, before);
    process.kill(victim, 'SIGKILL');
    await waitFor('ZooKeeper to be gone', async () => (gone(victim) ? true : undefined), { timeoutMs: 10_000, intervalMs: 2 });
    expect(await through('SELECT count() FROM events')).toEqual({ status: 200, text: `${before}\n` });
    await waitFor('ZooKeeper to run again', async () => (parts().get(`clickhouse-${ready.id}.zookeeper`)?.[0] ?? victim) !== victim || undefined, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    await waitFor('a write through the address', async () => ((await through('INSERT INTO events VALUES (5000)').catch(() => null))?.status === 200 ? true : undefined), {
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    for (const n of [0, 1, 2]) await holds(n, before + 1);
    await healthy();
  });

  it('a reset password is taken by every member, and the old one refused, once the reset answers', async () => {
    const reset = await s.api.post(`/v1/analytics/${ready.id}/reset-password`, {});
    expect(reset.status).toBe(200);
    recordIssuedPassword(reset.body.db_password);
    const old = password;
    password = reset.body.db_password;
    for (const n of [0, 1, 2]) {
      expect(await on(n, 'SELECT 1')).toEqual({ status: 200, text: '1\n' });
      expect((await query(members[n], ready.db_user, old, 'SELECT 1')).text).toMatch(/Wrong password/);
    }
    expect(await through('SELECT count() > 0 FROM events')).toEqual({ status: 200, text: '1\n' });
  });

  it('delete removes every member, ZooKeeper, the listener and the folders', async () => {
    expect((await s.api.delete(`/v1/analytics/${ready.id}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'analytics', ready.id);
    expect([...databaseServersUnder(s.stack.env.DATA_DIR).keys()].filter((k) => k.startsWith(`clickhouse-${ready.id}`))).toEqual([]);
    expect(existsSync(join(serversDir(), `clickhouse-${ready.id}`))).toBe(false);
    await expect(through('SELECT 1')).rejects.toThrow();
    for (const n of [0, 1, 2]) await expect(on(n, 'SELECT 1')).rejects.toThrow();
  });
});
