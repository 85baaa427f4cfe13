import {
  createManaged,
  databaseBacked,
  databaseServersUnder,
  DB_PLACEMENT,
  expectCreateRefused,
  expectTestbedCredential,
  inCatalogNetwork,
  itReal,
  providerUnderTest,
  spareLog,
  spareRedisHeld,
  tcpConnectOutcome,
  useSuite,
  waitForDatabase,
  waitForDatabaseGone,
  whenBacked,
  whenOpenStack,
  whenReal,
  withFullNetwork,
} from '@stratus/testing';
import Redis from 'ioredis';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Sends raw RESP inline commands and returns the first `count` reply lines. */
function rawRedis(host: string, port: number, commands: string, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => socket.write(commands));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      const lines = text.split('\r\n').filter(Boolean);
      if (lines.length >= count) {
        socket.destroy();
        resolve(lines.slice(0, count));
      }
    });
    socket.on('error', reject);
  });
}

function redisAt(ready: any, password: string): Redis {
  return new Redis({ host: ready.floating_ip, port: ready.port, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
}

describe(`managed cache (/v1/cache, Redis) on the ${providerUnderTest()} provider`, () => {
  const s = useSuite();

  const create = (body: Record<string, unknown>) => createManaged(s.api, 'cache', body);

  it('creates Redis 7, answers with the password once, serves it, and refuses connections after delete', async () => {
    // The claim of a spare is checked below: the worker starts its spares after it boots, and a busy machine takes seconds.
    await whenReal(() => spareRedisHeld(s.stack));
    const created = await create({ name: 'sessions' });
    expect(created.headers.get('retry-after')).toBe('15');
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'sessions',
      version: '7',
      password: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      status: 'provisioning',
      floating_ip: null,
      port: 6379,
      created_at: expect.stringMatching(ISO),
    });

    const ready = await waitForDatabase(s.api, 'cache', created.body.id);
    expect(ready).toEqual({
      id: created.body.id,
      name: 'sessions',
      version: '7',
      status: 'ready',
      floating_ip: expect.any(String),
      port: 6379,
      created_at: created.body.created_at,
      updated_at: expect.stringMatching(ISO),
      status_reason: null,
    });
    expect(await inCatalogNetwork(s.db, DB_PLACEMENT.network_id, ready.floating_ip)).toBe(true);
    await whenBacked(async () => expect(await databaseBacked(s.stack.env.DATA_DIR, `redis-${ready.id}`)).toBe(true));
    await whenOpenStack(() => expectTestbedCredential(s.db, ready, `redis-${ready.id}`, [created.body.password]));

    await whenReal(async () => {
      // The worker's started spare became this cache: it runs in the cache's folder, its marker (`<installation>/<key>`) still names the spare.
      const pid = databaseServersUnder(s.stack.env.DATA_DIR).get(`redis-${ready.id}`);
      const claimed = /(^|\0)STRATUS_DATABASE_SERVER=[0-9a-f]{8}\/spare-redis-/.test(readFileSync(`/proc/${pid}/environ`, 'latin1'));
      // Not claimed: what the worker logged of its spares and this cache is the failure's message.
      expect(claimed || spareLog(s.stack, `redis-${ready.id}`)).toBe(true);
      const redis = redisAt(ready, created.body.password);
      await redis.connect();
      await redis.set('greeting', 'hello');
      expect(await redis.get('greeting')).toBe('hello');
      expect((await redis.info('server')).match(/redis_version:(\d+)/)?.[1]).toBe('7');
      redis.disconnect();

      // Without the password, or with a wrong one, nothing is served.
      const replies = await rawRedis(ready.floating_ip, ready.port, 'GET greeting\r\nAUTH default not-the-password\r\n', 2);
      expect(replies[0]).toMatch(/^-NOAUTH/);
      expect(replies[1]).toMatch(/^-WRONGPASS/);
    });

    expect((await s.api.delete(`/v1/cache/${ready.id}`)).status).toBe(204);
    await waitForDatabaseGone(s.api, 'cache', ready.id);
    await whenReal(async () => expect(await tcpConnectOutcome(ready.floating_ip, ready.port)).toBe('ECONNREFUSED'));
    await whenBacked(async () => expect(await databaseBacked(s.stack.env.DATA_DIR, `redis-${ready.id}`)).toBe(false));
  });

  /**
   * Why a provider has no Redis 6: the local host has no such binary, Debian 12 (what the openstack
   * provider's servers run) packages Redis 7 only. The fake provider has no binaries to lack.
   */
  const noRedis6 = { local: /Redis 6 is not available on this host/, openstack: /Redis 6 is not packaged for Debian 12/, fake: null }[providerUnderTest()];

  (noRedis6 ? it : it.skip)('ends version 6 in error with a reason when the provider has no Redis 6, leaving nothing running', async () => {
    const created = await create({ name: 'legacy', version: '6', password: 'a-Chosen-passw0rd' });
    expect(created.body.password).toBe('a-Chosen-passw0rd');
    expect(created.body.version).toBe('6');
    const failed = await waitForDatabase(s.api, 'cache', created.body.id, ['error', 'ready']);
    expect(failed.status).toBe('error');
    expect(failed.status_reason).toMatch(noRedis6!);
    expect(await databaseBacked(s.stack.env.DATA_DIR, `redis-${created.body.id}`)).toBe(false);
  });

  it('refuses ha on /v1/cache', async () => {
    const res = await s.api.post('/v1/cache', { ...DB_PLACEMENT, name: 'with-ha', ha: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'bad_request', message: 'ha: property ha should not exist' });
    expect((await s.api.post('/v1/cache', { ...DB_PLACEMENT, name: 'with-ha', ha: false })).status).toBe(400);
  });

  it("answers 403 for another project's cache and never lists it", async () => {
    const created = await create({ name: 'mine' });
    const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
    for (const res of [await intruder.get(`/v1/cache/${created.body.id}`), await intruder.delete(`/v1/cache/${created.body.id}`)]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(((await intruder.get('/v1/cache')).body as any[]).some((c) => c.id === created.body.id)).toBe(false);
    expect(((await s.api.get('/v1/cache')).body as any[]).some((c) => c.id === created.body.id)).toBe(true);
    expect((await s.api.post('/v1/cache', { ...DB_PLACEMENT, name: 'mine' })).status).toBe(409);
  });

  // Filling the network takes the local provider's leases (the contract suite has the fake's full network).
  itReal('ends in error with a reason naming the network when it has no free address, as a cloud port create fails', async () => {
    const [{ cidr }] = await s.db.query(`SELECT cidr FROM networks WHERE id = $1`, [DB_PLACEMENT.network_id]);
    await withFullNetwork(s.db, cidr, async () => {
      const res = await s.api.post('/v1/cache', { ...DB_PLACEMENT, name: 'no-room' });
      expect(res.status).toBe(202);
      const failed = await waitForDatabase(s.api, 'cache', res.body.id, ['error', 'ready']);
      expect(failed).toMatchObject({
        status: 'error',
        status_reason: `network ${DB_PLACEMENT.network_id} has no free address left (${cidr}); delete a server on it or use another network`,
        floating_ip: null,
      });
      expect((await s.api.delete(`/v1/cache/${res.body.id}`)).status).toBe(204);
      await waitForDatabaseGone(s.api, 'cache', res.body.id);
    });
    const created = await create({ name: 'no-room' });
    expect(created.status).toBe(202);
    await waitForDatabase(s.api, 'cache', created.body.id);
    await s.api.delete(`/v1/cache/${created.body.id}`);
    await waitForDatabaseGone(s.api, 'cache', created.body.id);
  });

  describe('400 on every invalid create', () => {
    const valid = { name: 'v', ...DB_PLACEMENT };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing name', { ...valid, name: undefined }, 'name: is required'],
      ['bad name', { ...valid, name: 'Cache_1' }, 'name: must be lowercase letters and hyphens'],
      ['version 5', { ...valid, version: '5' }, 'version: must be one of 7, 6'],
      ['version as a number', { ...valid, version: 7 }, 'version: must be a string'],
      ['password too short', { ...valid, password: 'abc' }, 'password: must be longer than or equal to 8 characters'],
      ['password not a string', { ...valid, password: true }, 'password: must be a string'],
      ['database-only field', { ...valid, db_name: 'x' }, 'db_name: property db_name should not exist'],
      ['extensions', { ...valid, extensions: ['hstore'] }, 'extensions: property extensions should not exist'],
      ['unknown flavor', { ...valid, flavor_id: 'nope' }, 'flavor_id: flavor "nope" does not exist'],
      ['unknown network', { ...valid, network_id: 'nope' }, 'network_id: network "nope" does not exist'],
      ['unknown keypair', { ...valid, keypair_name: 'nope' }, 'keypair_name: keypair "nope" does not exist'],
    ];

    it.each(cases)('%s', (_label, body, message) => expectCreateRefused(s.api, s.db, 'cache', body, message));
  });
});
