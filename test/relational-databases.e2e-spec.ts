import {
  addressHeld,
  createManaged,
  expectCreateRefused,
  databaseServersUnder,
  DB_PLACEMENT,
  itReal,
  providerUnderTest,
  tcpConnectOutcome,
  useSuite,
  waitFor,
  waitForDatabase,
  waitForDatabaseGone,
  whenReal,
} from '@stratus/testing';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * `mariadb` (Debian's client) at the server, as a user of it with a password
 * (given in MYSQL_PWD, not on the command line): its output, or the error it
 * printed. The same program an operator would use.
 */
function mariadbClient(ready: any, user: string, password: string, sql: string, database = ''): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'mariadb',
      [
        '--no-defaults',
        `--host=${ready.floating_ip}`,
        `--port=${ready.port}`,
        `--user=${user}`,
        '--batch',
        '--skip-column-names',
        '--connect-timeout=10',
        '-e',
        sql,
        ...(database ? [database] : []),
      ],
      { env: { PATH: process.env.PATH, MYSQL_PWD: password }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ ok: !err, out: err ? String(stderr) : String(stdout).trim() }),
    );
  });
}

describe(`managed MariaDB and MySQL (/v1/relational-databases) on the ${providerUnderTest()} provider`, () => {
  const s = useSuite();

  const create = (body: Record<string, unknown>) => createManaged(s.api, 'relational-databases', body);

  it('creates MariaDB 10.11, answers with the password once, serves it to the mariadb client, and frees its address on delete', async () => {
    const created = await create({ name: 'shop', engine: 'mariadb' });
    expect(created.headers.get('retry-after')).toBe('15');
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'shop',
      engine: 'mariadb',
      db_name: 'app',
      db_user: 'appuser',
      db_password: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      db_version: '10.11',
      status: 'provisioning',
      floating_ip: null,
      port: 3306,
      created_at: expect.stringMatching(ISO),
    });

    const ready = await waitForDatabase(s.api, 'relational-databases', created.body.id);
    expect(ready).toEqual({
      id: created.body.id,
      name: 'shop',
      engine: 'mariadb',
      db_name: 'app',
      db_user: 'appuser',
      db_version: '10.11',
      status: 'ready',
      floating_ip: expect.stringMatching(/^127\.\d+\.\d+\.\d+$/),
      port: 3306,
      created_at: created.body.created_at,
      updated_at: expect.stringMatching(ISO),
      status_reason: null,
    });
    expect(ready.floating_ip).not.toBe('127.0.0.1');
    // Only the verifier is stored.
    const [row] = await s.db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [ready.id]);
    expect(row.password_verifier).toMatch(/^\*[0-9A-F]{40}$/);

    await whenReal(async () => {
      const password = created.body.db_password;
      const version = await mariadbClient(ready, 'appuser', password, 'SELECT VERSION(); SELECT CURRENT_USER(); SELECT DATABASE()', 'app');
      expect(version).toEqual({ ok: true, out: expect.stringMatching(/^10\.11\.\d+-MariaDB.*\nappuser@%\napp$/s) });
      const written = await mariadbClient(ready, 'appuser', password, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('hello'); SELECT v FROM t", 'app');
      expect(written).toEqual({ ok: true, out: 'hello' });
      // Only its database: not another one, not the system tables.
      const other = await mariadbClient(ready, 'appuser', password, 'CREATE DATABASE other');
      expect(other.ok).toBe(false);
      expect(other.out).toMatch(/Access denied/);
      expect((await mariadbClient(ready, 'appuser', password, 'SELECT COUNT(*) FROM mysql.user')).out).toMatch(/command denied|Access denied/);
      // A wrong password, and root from the network, with or without one, are refused.
      expect(await mariadbClient(ready, 'appuser', 'not-the-password', 'SELECT 1')).toEqual({ ok: false, out: expect.stringMatching(/Access denied for user 'appuser'/) });
      expect(await mariadbClient(ready, 'root', '', 'SELECT 1')).toEqual({ ok: false, out: expect.stringMatching(/Access denied for user 'root'/) });
      expect(await mariadbClient(ready, 'root', password, 'SELECT 1')).toEqual({ ok: false, out: expect.stringMatching(/Access denied for user 'root'/) });
    });

    expect((await s.api.delete(`/v1/relational-databases/${ready.id}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'relational-databases', ready.id);
    await whenReal(async () => {
      expect(await tcpConnectOutcome(ready.floating_ip, ready.port)).toBe('ECONNREFUSED');
      expect(databaseServersUnder(s.stack.env.DATA_DIR).has(`mariadb-${ready.id}`)).toBe(false);
    });
    expect(existsSync(join(s.stack.env.DATA_DIR, 'databases', `mariadb-${ready.id}`))).toBe(false);
    expect(await addressHeld(s.db, s.stack.env.DATA_DIR, `mariadb-${ready.id}`)).toBeNull();
  });

  it('honours superuser: true, with a chosen database, user and password', async () => {
    const created = await create({
      name: 'admin-db',
      engine: 'mariadb',
      version: '10.11',
      db_name: 'ledger',
      db_user: 'boss',
      db_password: 'Chosen-Relational-1',
      superuser: true,
    });
    expect(created.body).toMatchObject({ db_name: 'ledger', db_user: 'boss', db_password: 'Chosen-Relational-1' });
    const ready = await waitForDatabase(s.api, 'relational-databases', created.body.id);
    await whenReal(async () => {
      const grants = await mariadbClient(ready, 'boss', 'Chosen-Relational-1', 'SHOW GRANTS', 'ledger');
      expect(grants).toEqual({ ok: true, out: expect.stringMatching(/^GRANT ALL PRIVILEGES ON \*\.\* TO `boss`@`%`.*WITH GRANT OPTION$/) });
      expect((await mariadbClient(ready, 'boss', 'Chosen-Relational-1', 'CREATE DATABASE other; SELECT COUNT(*) > 0 FROM mysql.user')).out).toBe('1');
      // Even with every privilege, FILE reaches only the server's own folder (every server runs as one OS user).
      const file = await mariadbClient(ready, 'boss', 'Chosen-Relational-1', "SELECT LOAD_FILE('/etc/hostname') IS NULL");
      expect(file).toEqual({ ok: true, out: '1' });
    });
    await s.api.delete(`/v1/relational-databases/${ready.id}`);
    await waitForDatabaseGone(s.api, 'relational-databases', ready.id);
  });

  itReal('restarts a ready server that died, with its data', async () => {
    const created = await create({ name: 'phoenix', engine: 'mariadb' });
    const ready = await waitForDatabase(s.api, 'relational-databases', created.body.id);
    const password = created.body.db_password;
    expect(await mariadbClient(ready, 'appuser', password, 'CREATE TABLE t AS SELECT 42 AS answer', 'app')).toEqual({ ok: true, out: '' });

    const pid = databaseServersUnder(s.stack.env.DATA_DIR).get(`mariadb-${ready.id}`)!;
    process.kill(-pid, 'SIGKILL');
    await waitFor(
      'the server to be restarted',
      () => {
        const again = databaseServersUnder(s.stack.env.DATA_DIR).get(`mariadb-${ready.id}`);
        return again !== undefined && again !== pid;
      },
      { timeoutMs: 60_000 },
    );
    const answer = await waitFor(
      'the restarted server to answer',
      async () => {
        const res = await mariadbClient(ready, 'appuser', password, 'SELECT answer FROM t', 'app');
        return res.ok ? res.out : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(answer).toBe('42');
    expect((await s.api.get(`/v1/relational-databases/${ready.id}`)).body.status).toBe('ready');
    await s.api.delete(`/v1/relational-databases/${ready.id}`);
    await waitForDatabaseGone(s.api, 'relational-databases', ready.id);
  });

  // Which engines a host has is the local host's (the fake provider has no binaries to lack).
  itReal('ends a mysql create in error naming the missing server and the setting that points at one', async () => {
    const created = await create({ name: 'oracle-free', engine: 'mysql' });
    expect(created.body).toMatchObject({ engine: 'mysql', db_version: '8.0', port: 3306 });
    const failed = await waitForDatabase(s.api, 'relational-databases', created.body.id, ['error', 'ready']);
    expect(failed.status).toBe('error');
    expect(failed.status_reason).toMatch(/MySQL is not available on this host: no MySQL server binary \(mysqld\).*MYSQL_SERVER_BIN/);
    expect(databaseServersUnder(s.stack.env.DATA_DIR).has(`mysql-${created.body.id}`)).toBe(false);
  });

  itReal('ends MariaDB 11.4 in error when the host has only 10.11', async () => {
    const created = await create({ name: 'newer', engine: 'mariadb', version: '11.4' });
    const failed = await waitForDatabase(s.api, 'relational-databases', created.body.id, ['error', 'ready']);
    expect(failed).toMatchObject({ status: 'error', status_reason: expect.stringMatching(/^MariaDB 11\.4 is not available on this host: it has MariaDB 10\.11\.\d+ only$/) });
  });

  it("answers 403 for another project's database, never lists it, and keeps collections apart", async () => {
    const created = await create({ name: 'mine', engine: 'mariadb' });
    const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
    for (const res of [
      await intruder.get(`/v1/relational-databases/${created.body.id}`),
      await intruder.delete(`/v1/relational-databases/${created.body.id}`),
      await intruder.post(`/v1/relational-databases/${created.body.id}/reset-password`, {}),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(((await intruder.get('/v1/relational-databases')).body as any[]).some((d) => d.id === created.body.id)).toBe(false);
    const listed = (await s.api.get('/v1/relational-databases')).body as any[];
    expect(listed.find((d) => d.id === created.body.id)).toMatchObject({ engine: 'mariadb', name: 'mine' });
    expect(listed.every((d) => d.db_password === undefined)).toBe(true);
    // Not a PostgreSQL database, and PostgreSQL's list does not show it.
    expect((await s.api.get(`/v1/databases/${created.body.id}`)).status).toBe(404);
    expect(((await s.api.get('/v1/databases')).body as any[]).some((d) => d.id === created.body.id)).toBe(false);
    expect((await s.api.post('/v1/relational-databases', { ...DB_PLACEMENT, name: 'mine', engine: 'mariadb' })).status).toBe(409);
    await waitForDatabase(s.api, 'relational-databases', created.body.id, ['ready', 'error']);
    await s.api.delete(`/v1/relational-databases/${created.body.id}`);
    await waitForDatabaseGone(s.api, 'relational-databases', created.body.id);
  });

  describe('400 on every invalid create', () => {
    const valid = { name: 'v', engine: 'mariadb', ...DB_PLACEMENT };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['ha', { ...valid, ha: true }, 'ha: property ha should not exist'],
      ['ha false', { ...valid, ha: false }, 'ha: property ha should not exist'],
      ['missing engine', { ...valid, engine: undefined }, 'engine: is required'],
      ['unknown engine', { ...valid, engine: 'oracle' }, 'engine: must be one of mariadb, mysql'],
      ['postgres engine', { ...valid, engine: 'postgres' }, 'engine: must be one of mariadb, mysql'],
      ['unknown mariadb version', { ...valid, version: '10.6' }, 'version: must be one of 10.11, 11.4 for mariadb'],
      ['mysql version on mariadb', { ...valid, version: '8.0' }, 'version: must be one of 10.11, 11.4 for mariadb'],
      ['unknown mysql version', { ...valid, engine: 'mysql', version: '5.7' }, 'version: must be one of 8.0, 8.4 for mysql'],
      ['version as a number', { ...valid, version: 10.11 }, 'version: must be a string'],
      ['unknown field', { ...valid, extensions: ['hstore'] }, 'extensions: property extensions should not exist'],
      ['reserved database', { ...valid, db_name: 'mysql' }, 'db_name: must not be one of the reserved names'],
      ['root user', { ...valid, db_user: 'root' }, 'db_user: must not be one of the reserved names'],
      ['user too long for MySQL', { ...valid, db_user: 'u'.repeat(33) }, 'db_user: must be shorter than or equal to 32 characters'],
      ['password too short', { ...valid, db_password: 'abc' }, 'db_password: must be longer than or equal to 8 characters'],
      ['superuser not a boolean', { ...valid, superuser: 'yes' }, 'superuser: must be a boolean value'],
      ['bad name', { ...valid, name: 'Shop_1' }, 'name: must be lowercase letters and hyphens'],
      ['unknown flavor', { ...valid, flavor_id: 'nope' }, 'flavor_id: flavor "nope" does not exist'],
    ];

    it.each(cases)('%s', (_label, body, message) => expectCreateRefused(s.api, s.db, 'relational-databases', body, message));
  });
});
