import { ManagedDatabase } from '@stratus/core';
import { DATABASE_MARKER, killTree, postmasterPid } from '@stratus/providers';
import {
  addressHeld,
  createManaged,
  databaseServersUnder,
  markedLeadersUnder,
  recordIssuedPassword,
  useSuite,
  waitFor,
  waitForDatabase,
  waitForDatabaseGone,
} from '@stratus/testing';
import { existsSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import { Client } from 'pg';

/**
 * High-availability PostgreSQL on the local provider: three Patroni members
 * on etcd behind the edge's HAProxy, one database for the whole suite (an
 * ha database takes tens of seconds to come up). Every failover is real:
 * the primary's Patroni and postmaster are SIGKILLed under a writing client.
 */
describe('high-availability PostgreSQL (ha: true)', () => {
  const s = useSuite({}, ['api', 'worker', 'edge']);
  let ready: any;
  let password: string;
  let row: ManagedDatabase;

  const get = async () => (await s.api.get(`/v1/databases/${ready.id}`)).body;
  /** A client of the database's address, or of one member's own (`host`). */
  const connect = async (host: string = ready.floating_ip): Promise<Client> => {
    const client = new Client({ host, port: 5432, user: ready.db_user, password, database: ready.db_name, connectionTimeoutMillis: 3_000 });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };

  const memberDir = (n: number) => join(s.stack.env.DATA_DIR, 'databases', `postgres-${ready.id}`, `member-${n}`);
  /**
   * One member's processes: its Patroni (a marked process-group leader), and
   * the postmaster it started in a session of its own (by its data folder's
   * postmaster.pid: a postmaster rewrites its environment for its title).
   */
  const memberProcesses = (n: number): number[] => {
    const patroni = markedLeadersUnder(DATABASE_MARKER, s.stack.env.DATA_DIR, join(s.stack.env.DATA_DIR, 'databases') + sep).get(`postgres-${ready.id}.member-${n}`) ?? [];
    const postmaster = postmasterPid(join(memberDir(n), 'data'));
    return [...patroni, ...(postmaster === null ? [] : [postmaster])];
  };

  /**
   * SIGKILLs one member as a lost host goes: its Patroni, and its postmaster
   * with every backend (each in a session of its own: left behind, the
   * primary's go on committing for the clients they serve). Its pids.
   */
  const killMember = (n: number): number[] => {
    const pids = memberProcesses(n);
    // Patroni and its postmaster.
    expect(pids).toHaveLength(2);
    for (const pid of pids) killTree(pid);
    return pids;
  };

  /** The primary's member index, once get shows it and that member's own server says it is not in recovery (get shows the last observation). */
  async function primaryIndex(): Promise<number> {
    return waitFor(
      'get to show the member that is primary',
      async () => {
        const primary = (await get()).members.find((m: any) => m.role === 'primary' && m.health === 'up');
        if (!primary) return undefined;
        // A member that refuses or fails the query is looked at again (waitFor retries what throws).
        const direct = await connect(primary.address);
        try {
          const { rows } = await direct.query('SELECT pg_is_in_recovery() AS standby');
          return rows[0].standby ? undefined : row.memberAddresses.indexOf(primary.address);
        } finally {
          await direct.end().catch(() => undefined);
        }
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }

  /** Healthy again without help: three members up, one primary, not degraded. */
  async function healthy(): Promise<any> {
    return waitFor(
      'the database to be healthy again',
      async () => {
        const body = await get();
        const up = body.members.filter((m: any) => m.health === 'up');
        return body.status === 'ready' && !body.degraded && up.length === 3 && body.members.filter((m: any) => m.role === 'primary').length === 1 ? body : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
  }

  /**
   * A client inserting numbered rows through the address, one commit each,
   * reconnecting after any failure; `acked` holds every commit it saw.
   */
  function writer() {
    const acked: number[] = [];
    const sentAt: number[] = [];
    const ackedAt: number[] = [];
    let stop = false;
    let next = 0;
    const done = (async () => {
      let client: Client | null = null;
      while (!stop) {
        try {
          client ??= await connect();
          const n = next++;
          const sent = Date.now();
          await client.query('INSERT INTO ledger (n) VALUES ($1)', [n]);
          acked.push(n);
          sentAt.push(sent);
          ackedAt.push(Date.now());
        } catch {
          await client?.end().catch(() => undefined);
          client = null;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      await client?.end().catch(() => undefined);
    })();
    return {
      acked,
      /** When the first commit sent after `t` was acknowledged (one sent before may be acknowledged just after). */
      firstAckAfter: (t: number) => ackedAt[sentAt.findIndex((at) => at > t)] ?? null,
      stop: async () => {
        stop = true;
        await done;
      },
    };
  }

  /** Kills the primary's processes under a writer, waits for writes to resume, and checks every acknowledged row. */
  async function failover(alsoRemoveData: boolean): Promise<{ killed: number; seconds: number }> {
    const killed = await primaryIndex();
    const w = writer();
    // What get says meanwhile: the killed member down and the database degraded, while the address serves.
    let sawDegraded = false;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const body = await get();
        if (body.degraded && body.members.find((m: any) => m.address === row.memberAddresses[killed])?.health === 'down') sawDegraded = true;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    let killedAt: number;
    try {
      await waitFor('writes before the kill', () => w.acked.length >= 50, { timeoutMs: 60_000 });
      killMember(killed);
      // Timed from the last signal: a commit sent while the processes were still being found and signalled was the old primary's to answer.
      killedAt = Date.now();
      if (alsoRemoveData) rmSync(join(memberDir(killed), 'data'), { recursive: true, force: true });
      const before = w.acked.length;
      await waitFor('writes to resume through the same address', () => w.acked.length >= before + 50, { timeoutMs: 120_000 });
      await waitFor('get to say degraded', () => sawDegraded, { timeoutMs: 60_000 });
    } finally {
      await w.stop();
      watching = false;
      await watcher;
    }
    const seconds = (w.firstAckAfter(killedAt!) - killedAt) / 1000;

    const client = await connect();
    const present = new Set((await client.query('SELECT n FROM ledger')).rows.map((r) => r.n));
    await client.end();
    const lost = w.acked.filter((n) => !present.has(n));
    expect(lost).toEqual([]);
    return { killed, seconds };
  }

  beforeAll(async () => {
    const created = await createManaged(s.api, 'databases', { name: 'pg-ha', version: '15', ha: true, superuser: true, extensions: ['hstore', 'pg_stat_statements'] });
    password = created.body.db_password;
    expect(created.body).toMatchObject({ status: 'provisioning', floating_ip: null, port: 5432 });
    ready = await waitForDatabase(s.api, 'databases', created.body.id, ['ready', 'error'], { timeoutMs: 300_000, intervalMs: 250 });
    expect(ready.status_reason).toBeNull();
    row = await s.db.getRepository(ManagedDatabase).findOneByOrFail({ id: ready.id });
    const client = await connect();
    await client.query('CREATE TABLE ledger (n int PRIMARY KEY)');
    await client.end();
  }, 360_000);

  it('is ready with three members (a primary, two replicas), the tripled footprint, and serves through its address', async () => {
    expect(row.memberAddresses).toHaveLength(3);
    expect(new Set([...row.memberAddresses, ready.floating_ip]).size).toBe(4);
    const body = await get();
    expect(body).toMatchObject({ ha: true, footprint: { servers: 3, flavor_id: row.flavorId }, degraded: false, status: 'ready' });
    expect(body.members.map((m: any) => m.address).sort()).toEqual([...row.memberAddresses].sort());
    expect(body.members.filter((m: any) => m.role === 'primary')).toHaveLength(1);
    for (const m of body.members) {
      expect(m.health).toBe('up');
      if (m.role === 'replica') expect(m.lag).toEqual({ value: expect.any(Number), unit: 'bytes' });
      else expect(m.lag).toBeNull();
    }
    const listed = (await s.api.get('/v1/databases')).body.find((d: any) => d.id === ready.id);
    expect(listed).toMatchObject({ ha: true, footprint: { servers: 3 }, degraded: false, members: expect.any(Array) });

    const client = await connect();
    const { rows } = await client.query(
      `SELECT current_setting('server_version_num') AS v, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su, pg_is_in_recovery() AS standby,
              (SELECT array_agg(extname::text ORDER BY extname) FROM pg_extension) AS ext, current_setting('synchronous_standby_names') AS sync`,
    );
    expect(rows[0]).toMatchObject({ su: true, standby: false });
    expect(rows[0].v.slice(0, 2)).toBe('15');
    expect(rows[0].ext).toEqual(expect.arrayContaining(['hstore', 'pg_stat_statements']));
    // A commit waits for a synchronous standby.
    expect(rows[0].sync).not.toBe('');
    await client.query('SELECT count(*) FROM pg_stat_statements');
    await expect(new Client({ host: ready.floating_ip, port: 5432, user: ready.db_user, password: 'wrong', database: ready.db_name }).connect()).rejects.toThrow(
      /password authentication failed/,
    );
    await client.end();
  });

  it('takes a reset password through the primary: the new one logs in through the address, the old one no longer', async () => {
    const reset = await s.api.post(`/v1/databases/${ready.id}/reset-password`, {});
    recordIssuedPassword(reset.body.db_password);
    expect(reset.status).toBe(200);
    const old = password;
    password = reset.body.db_password;
    const client = await connect();
    await client.end();
    password = old;
    await expect(connect()).rejects.toThrow(/password authentication failed/);
    password = reset.body.db_password;
    // Replicated: a replica has it too.
    const replica = (await get()).members.find((m: any) => m.role === 'replica');
    const direct = await connect(replica.address);
    expect((await direct.query('SELECT pg_is_in_recovery() AS standby')).rows).toEqual([{ standby: true }]);
    await direct.end();
  });

  it('a version whose build here cannot be cloned or rewound ends in error with the reason, leaving nothing', async () => {
    const created = await createManaged(s.api, 'databases', { name: 'pg-ha-sixteen', version: '16', ha: true });
    const failed = await waitForDatabase(s.api, 'databases', created.body.id, ['error', 'ready'], { timeoutMs: 120_000 });
    expect(failed.status).toBe('error');
    expect(failed.status_reason).toMatch(/PostgreSQL 16 with ha: true needs pg_basebackup and pg_rewind/);
    expect(existsSync(join(s.stack.env.DATA_DIR, 'databases', `postgres-${created.body.id}`))).toBe(false);
    expect((await s.api.delete(`/v1/databases/${created.body.id}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'databases', created.body.id);
  });

  it('restarts a replica that died, without a failover', async () => {
    const primary = await primaryIndex();
    const replica = [0, 1, 2].find((n) => n !== primary)!;
    const pids = killMember(replica);
    await waitFor('get to say degraded', async () => ((await get()).degraded ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    const body = await healthy();
    // The same primary throughout, and the replica's processes are new ones.
    expect(body.members.find((m: any) => m.role === 'primary').address).toBe(row.memberAddresses[primary]);
    expect(memberProcesses(replica).some((pid) => pids.includes(pid))).toBe(false);
  });

  it('says degraded while a member runs but does not stream from the primary, and whole again once it does', async () => {
    const client = await connect();
    try {
      // The replica that is not the synchronous standby: commits and Patroni's choice of standby go on as before, and only the new rule sees it.
      const { rows } = await client.query(`SELECT application_name AS name FROM pg_stat_replication WHERE sync_state = 'async' AND state = 'streaming'`);
      expect(rows).toHaveLength(1);
      // Its PostgreSQL and Patroni keep running; its stream is cut and cannot come back.
      await client.query('ALTER ROLE replicator NOLOGIN');
      await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = $1`, [rows[0].name]);
      const seen = await waitFor(
        'get to say degraded',
        async () => {
          const body = await get();
          return body.degraded ? body : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      // Every member still runs: what is missing is the stream.
      expect(seen.members.every((m: any) => m.health === 'up')).toBe(true);
    } finally {
      await client.query('ALTER ROLE replicator LOGIN');
      await client.end();
    }
    await healthy();
  });

  it('fails over under load when the primary is killed, loses no acknowledged write, and heals with the old primary as a replica', async () => {
    const { killed, seconds } = await failover(false);
    // It comes back as a replica: its role when it is first up again (a later failover on a busy host may make it primary again, rightly).
    const back = await waitFor(
      'the old primary to be up again',
      async () => (await get()).members.find((m: any) => m.address === row.memberAddresses[killed] && m.health === 'up'),
      { timeoutMs: 180_000, intervalMs: 100 },
    );
    expect(back.role).toBe('replica');
    await healthy();
    process.stdout.write(`[ha] failover after killing the primary: first acknowledged write ${seconds.toFixed(1)} s after the kill\n`);
  });

  it('rebuilds a killed primary whose data folder is gone from the others', async () => {
    const { killed, seconds } = await failover(true);
    const body = await healthy();
    expect(body.members.find((m: any) => m.address === row.memberAddresses[killed]).role).toBe('replica');
    expect(existsSync(join(memberDir(killed), 'data', 'PG_VERSION'))).toBe(true);
    // The rebuilt member holds the rows written before it was lost.
    const member = await connect(row.memberAddresses[killed]);
    expect((await member.query('SELECT pg_is_in_recovery() AS standby, count(*)::int AS rows FROM ledger')).rows[0]).toMatchObject({ standby: true, rows: expect.any(Number) });
    await member.end();
    process.stdout.write(`[ha] failover with the data folder removed: first acknowledged write ${seconds.toFixed(1)} s after the kill\n`);
  });

  it('delete removes the members, etcd, the listener and every folder and process', async () => {
    expect((await s.api.delete(`/v1/databases/${ready.id}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'databases', ready.id, 120_000);
    expect(existsSync(join(s.stack.env.DATA_DIR, 'databases', `postgres-${ready.id}`))).toBe(false);
    expect(databaseServersUnder(s.stack.env.DATA_DIR).has(`postgres-${ready.id}`)).toBe(false);
    for (let n = 0; n < 3; n++) expect(memberProcesses(n)).toEqual([]);
    expect(await s.db.query(`SELECT 1 FROM load_balancers WHERE id = $1`, [`dbha-postgres-${ready.id}`])).toEqual([]);
    await waitFor(
      'the address to refuse connections',
      async () =>
        (await connect().then(
          (c) => c.end().then(() => false),
          () => true,
        )) || undefined,
      { timeoutMs: 30_000 },
    );
    for (const key of [`postgres-${ready.id}`, ...[0, 1, 2].map((n) => `postgres-${ready.id}-member-${n}`)]) expect(await addressHeld(s.db, s.stack.env.DATA_DIR, key)).toBeNull();
  });
});
