import { waitFor } from '@stratus/testing';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { HostAccounts, RunAs } from '../host-accounts';
import { installationId } from '../installation';
import { postgresAdmin } from './local-databases';
import { ServerPaths } from './local-engine';
import { isAlive, killTree, readStat } from '../process-table';
import { PG_HBA, PostgresEngine } from './postgres.engine';
import { choosePostgresDistribution } from './postgres-distributions';

/** Addresses of this test slot's own, out of every pool: suites of two slots may run this spec at once. */
const NET = `127.122.${Number(process.env.STRATUS_TEST_SLOT ?? 0)}`;

const spec: DatabaseServerSpec = {
  key: 'postgres-1',
  engine: 'postgres',
  version: '16',
  address: `${NET}.1`,
  port: 5432,
  dbName: 'app',
  dbUser: 'app',
  passwordVerifier: 'unused',
  superuser: false,
  extensions: [],
  ha: false,
  memberAddresses: [],
};

const hasPostgres16 = typeof choosePostgresDistribution('16', []) !== 'string';

(hasPostgres16 ? describe : describe.skip)('PostgresEngine: data folder copies made ahead', () => {
  let accounts: HostAccounts;
  let runAs: RunAs;
  let root: string;
  let n = 0;

  /** A fresh server folder, as the driver makes it. */
  function paths(): ServerPaths {
    const dir = join(root, 'databases', `postgres-${++n}`);
    mkdirSync(dir, { recursive: true });
    return { dir, data: join(dir, 'data'), run: join(dir, 'run'), log: join(dir, 'server.log') };
  }

  /** Whole copies (a copy is made as `.tmp-…` and renamed when complete). */
  const copies = () => (existsSync(join(root, 'templates', 'copies')) ? readdirSync(join(root, 'templates', 'copies')).filter((name) => !name.startsWith('.')) : []);

  /** A server laid out at `address` as the driver lays one out, its socket folder made: its engine, admin, paths and the programs' folder. */
  async function laidOut(address: string): Promise<{ admin: ReturnType<typeof postgresAdmin>; engine: PostgresEngine; p: ServerPaths; bin: string }> {
    const admin = postgresAdmin(root);
    const engine = new PostgresEngine(join(root, 'templates'), admin);
    const p = paths();
    mkdirSync(p.run, { mode: 0o700 });
    chownSync(p.run, runAs.uid, runAs.gid);
    await engine.layOut({ ...spec, address }, p, runAs);
    return { admin, engine, p, bin: JSON.parse(readFileSync(join(p.dir, 'postgres.json'), 'utf8')).distribution.bin };
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'stratus-pg-copies-'));
    chmodSync(root, 0o755);
    accounts = new HostAccounts(installationId(root));
    runAs = await accounts.databaseUser();
  });

  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await accounts.removeAll();
  });

  it('without keepCopies, each layout copies the template and nothing is made ahead', async () => {
    const engine = new PostgresEngine(join(root, 'templates'), postgresAdmin(root));
    const p = paths();
    await engine.layOut(spec, p, runAs);
    expect(readFileSync(join(p.data, 'PG_VERSION'), 'utf8').trim()).toBe('16');
    await new Promise((r) => setTimeout(r, 1_300));
    expect(copies()).toEqual([]);
  });

  it('with keepCopies, a copy is made after a layout and the next layout takes it whole', async () => {
    const engine = new PostgresEngine(join(root, 'templates'), postgresAdmin(root));
    // A half-made copy of a worker that is gone: removed.
    const gone = join(root, 'templates', 'copies', '.tmp-999999999-1');
    mkdirSync(gone, { recursive: true });
    engine.keepCopies(1);
    expect(existsSync(gone)).toBe(false);

    await engine.layOut(spec, paths(), runAs);
    const [made] = await waitFor('a copy made ahead', () => copies().length === 1 && copies(), { timeoutMs: 30_000, intervalMs: 50 });
    const dist = choosePostgresDistribution('16', []) as { id: string };
    expect(made).toMatch(new RegExp(`^pg-scram-${dist.id}\\.${process.pid}-\\d+$`));

    const p = paths();
    await engine.layOut(spec, p, runAs);
    expect(copies()).not.toContain(made);
    expect(readFileSync(join(p.data, 'PG_VERSION'), 'utf8').trim()).toBe('16');
    // Its own settings on top of the copy, owned by the database user like the rest.
    expect(readFileSync(join(p.data, 'stratus.conf'), 'utf8')).toContain(`listen_addresses = '${spec.address}'`);
    await waitFor('the copy replaced', () => copies().length === 1 && copies()[0] !== made, { timeoutMs: 30_000, intervalMs: 50 });
  });

  it('a server an earlier release laid out (socket trusted, no admin password) gets the password and loses trust before its next start', async () => {
    const { admin, engine, p, bin } = await laidOut(`${NET}.2`);
    // As an earlier release left it.
    writeFileSync(join(p.data, 'pg_hba.conf'), 'local all all trust\nhost all all 0.0.0.0/0 scram-sha-256\n');
    chownSync(join(p.data, 'pg_hba.conf'), runAs.uid, runAs.gid);
    const asDatabaseUser = { uid: runAs.uid, gid: runAs.gid, cwd: p.data };
    const single = spawnSync(join(bin, 'postgres'), ['--single', '-D', p.data, 'postgres'], { ...asDatabaseUser, input: 'ALTER ROLE postgres PASSWORD NULL;\n' });
    expect(single.status).toBe(0);

    await engine.beforeStart(p, runAs);
    expect(readFileSync(join(p.data, 'pg_hba.conf'), 'utf8')).toBe(PG_HBA);

    const server = spawn(join(bin, 'postgres'), ['-D', p.data], { ...asDatabaseUser, stdio: 'ignore' });
    try {
      const login = async (password?: string) => {
        const client = new Client({ host: p.run, port: 5432, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 5_000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          return (await client.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).rows[0].rolsuper;
        } finally {
          await client.end().catch(() => undefined);
        }
      };
      await waitFor('the upgraded server to let the admin in', () => login(admin.password).catch(() => false), { timeoutMs: 30_000, intervalMs: 100 });
      await expect(login()).rejects.toThrow(/password/);
      await expect(login('not-the-password')).rejects.toThrow(/password authentication failed/);
    } finally {
      server.kill('SIGINT');
      await new Promise((r) => server.once('exit', r));
    }
  });

  it('killTree ends a server and its busy backend with it: PostgreSQL puts each backend in a session of its own', async () => {
    const { admin, engine, p, bin } = await laidOut(`${NET}.3`);
    await engine.beforeStart(p, runAs);
    // A group of its own, as the driver starts it.
    const server = spawn(join(bin, 'postgres'), ['-D', p.data], { uid: runAs.uid, gid: runAs.gid, cwd: p.data, stdio: 'ignore', detached: true });
    const client = () => new Client({ host: p.run, port: 5432, user: 'postgres', password: admin.password, database: 'postgres', connectionTimeoutMillis: 5_000 });
    let backend = 0;
    try {
      const busy = await waitFor(
        'the server to let the admin in',
        async () => {
          const c = client();
          c.on('error', () => undefined);
          await c.connect();
          return c;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      backend = (await busy.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      expect(readStat(backend)!.pgrp).not.toBe(server.pid);
      // A query that runs for hours and never waits: the backend would not notice its postmaster gone until it ends.
      const answered = busy.query('SELECT count(*) FROM generate_series(1, 1e12::bigint)').then(
        () => 'answered',
        (err: Error) => err.message,
      );
      await waitFor('the query to run', () => readStat(backend)?.state === 'R' || undefined, { timeoutMs: 30_000, intervalMs: 20 });

      expect(killTree(server.pid!)).toBe(true);
      await waitFor('the busy backend to be gone', () => !isAlive(readStat(backend)), { timeoutMs: 30_000, intervalMs: 100 });
      expect(await answered).not.toBe('answered');
      expect(isAlive(readStat(server.pid!))).toBe(false);
    } finally {
      for (const pid of [backend, server.pid!]) if (pid && isAlive(readStat(pid))) process.kill(pid, 'SIGKILL');
    }
  });
});
