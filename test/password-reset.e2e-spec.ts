import { databaseServerKey } from '@stratus/core';
import {
  createManaged,
  DatabaseCollection,
  expectTestbedCredential,
  providerUnderTest,
  recordIssuedPassword,
  useSuite,
  waitForDatabase,
  waitForDatabaseGone,
  whenOpenStack,
  whenReal,
} from '@stratus/testing';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Client } from 'pg';

/** Logs in to a ready server of any engine with `password` and runs one trivial query: true when the server took it. */
type Login = (ready: any, password: string) => Promise<boolean>;

const postgresLogin: Login = async (ready, password) => {
  const client = new Client({ host: ready.floating_ip, port: ready.port, user: ready.db_user, password, database: ready.db_name, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    if (!/password authentication failed/.test(String(err))) throw err;
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** Raw RESP: ioredis reports a refused AUTH as a closed connection, which would hide a server that is down. */
const redisLogin: Login = (ready, password) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: ready.floating_ip, port: ready.port }, () => socket.write(`AUTH default ${password}\r\n`));
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.includes('\r\n')) return;
      socket.destroy();
      if (reply.startsWith('+OK')) resolve(true);
      else if (reply.startsWith('-WRONGPASS')) resolve(false);
      else reject(new Error(reply));
    });
    socket.on('error', reject);
  });

const clickhouseLogin: Login = (ready, password) =>
  new Promise((resolve, reject) => {
    const req = request({ host: ready.floating_ip, port: ready.port, path: '/?query=SELECT%201', auth: `${ready.db_user}:${password}`, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () =>
        res.statusCode === 200 && body.trim() === '1' ? resolve(true) : /Authentication|password/i.test(body) ? resolve(false) : reject(new Error(`${res.statusCode}: ${body}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });

const mariadbLogin: Login = (ready, password) =>
  new Promise((resolve, reject) => {
    execFile(
      'mariadb',
      ['--no-defaults', `--host=${ready.floating_ip}`, `--port=${ready.port}`, `--user=${ready.db_user}`, '--connect-timeout=10', '-e', 'SELECT 1', ready.db_name],
      { env: { PATH: process.env.PATH, MYSQL_PWD: password }, timeout: 30_000 },
      (err, _stdout, stderr) => (!err ? resolve(true) : /Access denied/.test(String(stderr)) ? resolve(false) : reject(new Error(String(stderr)))),
    );
  });

/** Each collection: a create body, the field its password is in, and how to log in. */
const ENGINES: Array<[DatabaseCollection, Record<string, unknown>, 'db_password' | 'password', Login]> = [
  ['databases', { name: 'rotate-pg' }, 'db_password', postgresLogin],
  ['cache', { name: 'rotate-cache' }, 'password', redisLogin],
  ['analytics', { name: 'rotate-ch' }, 'db_password', clickhouseLogin],
  ['relational-databases', { name: 'rotate-maria', engine: 'mariadb' }, 'db_password', mariadbLogin],
];

/** The openstack provider builds no MariaDB or MySQL server (their create ends in error saying so): there is none to reset there. */
const built = ([collection]: (typeof ENGINES)[number]) => !(providerUnderTest() === 'openstack' && collection === 'relational-databases');

describe(`POST /v1/<collection>/:id/reset-password on the ${providerUnderTest()} provider`, () => {
  const s = useSuite();

  const resetCase = async (...[collection, body, field, login]: (typeof ENGINES)[number]) => {
    const created = await createManaged(s.api, collection, body);
    const ready = await waitForDatabase(s.api, collection, created.body.id);
    const old = created.body[field];
    await whenReal(async () => expect(await login(ready, old)).toBe(true));
    const [before] = await s.db.query(`SELECT password_verifier FROM managed_databases WHERE id = $1`, [ready.id]);

    const reset = await s.api.post(`/v1/${collection}/${ready.id}/reset-password`, {});
    recordIssuedPassword(reset.body[field]);
    expect(reset.status).toBe(200);
    const { [field]: fresh, ...rest } = reset.body;
    expect(fresh).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(fresh).not.toBe(old);
    // The create response's shape, the same server.
    expect(Object.keys(reset.body)).toEqual(Object.keys(created.body));
    expect(rest).toMatchObject({ id: ready.id, name: ready.name, status: 'ready', floating_ip: ready.floating_ip, port: ready.port });

    // Only the new verifier is stored, and nothing waits.
    const [after] = await s.db.query(`SELECT password_verifier, password_pending FROM managed_databases WHERE id = $1`, [ready.id]);
    expect(after.password_pending).toBe(false);
    expect(after.password_verifier).not.toBe(before.password_verifier);
    expect(after.password_verifier).not.toContain(fresh);

    await whenReal(async () => {
      expect(await login(ready, fresh)).toBe(true);
      expect(await login(ready, old)).toBe(false);
    });
    // Without a data path, the server's metadata carrying the new verifier is what the testbed shows of it.
    await whenOpenStack(async () => {
      const [{ engine }] = await s.db.query(`SELECT engine FROM managed_databases WHERE id = $1`, [ready.id]);
      await expectTestbedCredential(s.db, ready, databaseServerKey({ engine, id: ready.id }), [old, fresh]);
    });
    // Never shown again.
    expect(JSON.stringify((await s.api.get(`/v1/${collection}/${ready.id}`)).body)).not.toContain(fresh);

    await s.api.delete(`/v1/${collection}/${ready.id}`);
    await waitForDatabaseGone(s.api, collection, ready.id);
  };
  const title = '%s: a new password, returned once; the server takes it and refuses the old one at once';
  it.each(ENGINES.filter(built))(title, resetCase);
  if (!ENGINES.every(built)) it.skip.each(ENGINES.filter((engine) => !built(engine)))(title, resetCase);

  it('leaves sessions opened with the old password open on PostgreSQL', async () => {
    const created = await createManaged(s.api, 'databases', { name: 'rotate-session' });
    const ready = await waitForDatabase(s.api, 'databases', created.body.id);
    await whenReal(async () => {
      const open = new Client({ host: ready.floating_ip, port: ready.port, user: ready.db_user, password: created.body.db_password, database: ready.db_name });
      await open.connect();
      try {
        const reset = await s.api.post(`/v1/databases/${ready.id}/reset-password`, {});
        recordIssuedPassword(reset.body.db_password);
        expect(reset.status).toBe(200);
        expect((await open.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await open.end();
      }
    });
    await s.api.delete(`/v1/databases/${ready.id}`);
    await waitForDatabaseGone(s.api, 'databases', ready.id);
  });

  it('answers 409 while a server is not ready, 404 for one that does not exist, 403 for another project', async () => {
    const created = await createManaged(s.api, 'cache', { name: 'rotate-early' });
    // Failed servers have no password to change either.
    await s.db.query(`UPDATE managed_databases SET status = 'error', status_reason = 'made so by the test' WHERE id = $1`, [created.body.id]);
    const early = await s.api.post(`/v1/cache/${created.body.id}/reset-password`, {});
    expect(early.status).toBe(409);
    expect(early.body.error).toEqual({ code: 'conflict', message: `cache instance ${created.body.id} is error: a password can be reset once it is ready` });
    expect((await s.api.post('/v1/cache/999999/reset-password', {})).status).toBe(404);
    expect((await s.api.post('/v1/databases/not-a-number/reset-password', {})).status).toBe(404);
    // Another collection's server is not this one's.
    expect((await s.api.post(`/v1/databases/${created.body.id}/reset-password`, {})).status).toBe(404);
    const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
    expect((await intruder.post(`/v1/cache/${created.body.id}/reset-password`, {})).status).toBe(403);
    await s.api.delete(`/v1/cache/${created.body.id}`);
    await waitForDatabaseGone(s.api, 'cache', created.body.id);
  });
});
