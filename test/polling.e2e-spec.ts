import { Instance, ManagedDatabase, ProxyHost, Volume } from '@stratus/core';
import { createTenant, DEMO_INSTANCE, HttpClient, Reply, saveBareInstance, useSuite, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';

/*
 * Pages, filters, ETags and long polls of the lists and gets, on both
 * surfaces. Rows are written straight to PostgreSQL in statuses the worker
 * leaves alone (ERROR, SHUTOFF with nothing running, error, available), so
 * what a list shows changes only when a test changes it.
 */

/** The url of `Link: <url>; rel="next"`, or null. */
function nextLink(reply: Reply): string | null {
  const link = reply.headers.get('link');
  if (!link) return null;
  const m = /^<([^>]+)>; rel="next"$/.exec(link);
  if (!m) throw new Error(`not a next link: ${link}`);
  return m[1];
}

/** Follows rel="next" from `path` to the end; the ids of every page, in order. */
async function walk(client: HttpClient, path: string): Promise<string[][]> {
  const pages: string[][] = [];
  let url: string | null = path;
  while (url) {
    const reply = await client.get(url.startsWith('http') ? url.slice(client.baseUrl.length) : url);
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    pages.push(reply.body.map((i: { id: string | number }) => String(i.id)));
    url = nextLink(reply);
    if (pages.length > 1000) throw new Error('no end to the pages');
  }
  return pages;
}

/** Time of one request, and its reply. */
async function timed(request: () => Promise<Reply>): Promise<[Reply, number]> {
  const started = Date.now();
  const reply = await request();
  return [reply, Date.now() - started];
}

/** Small, so that the cap can be met with a few requests. */
const MAX_WAITERS = 2;

describe('pages, filters, ETags and long polls', () => {
  const s = useSuite({ LONG_POLL_MAX_WAITERS: String(MAX_WAITERS) });

  /** `n` instances of the owner, made one after another so each is newer than the last; oldest first. */
  async function instances(n: number, fields: Partial<Instance> = {}): Promise<Instance[]> {
    const made: Instance[] = [];
    for (let i = 0; i < n; i++) made.push(await saveBareInstance(s.db, { projectId: s.owner.projectId, userId: s.owner.userId, status: 'ERROR', name: `p-${i}`, ...fields }));
    return made;
  }

  describe('GET /v1/instances', () => {
    let made: Instance[];
    beforeAll(async () => {
      made = await instances(7);
    });

    it('pages by limit and cursor, newest first, with a Link to the next page until the last', async () => {
      const pages = await walk(s.api, '/v1/instances?limit=3');
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(made.map((i) => i.id).reverse());
    });

    it('keeps the other parameters in the Link and leaves wait out', async () => {
      const first = await s.api.get('/v1/instances?limit=2&status=ERROR&wait=0');
      const url = new URL(nextLink(first)!);
      expect(url.pathname).toBe('/v1/instances');
      expect(url.searchParams.get('limit')).toBe('2');
      expect(url.searchParams.get('status')).toBe('ERROR');
      expect(url.searchParams.has('wait')).toBe(false);
      expect(url.searchParams.get('cursor')).toMatch(/^[\w-]+$/);
    });

    it('is stable under inserts: rows made while a client pages show up on no later page', async () => {
      const seen: string[] = [];
      let url: string | null = '/v1/instances?limit=2';
      let inserted = 0;
      while (url) {
        const reply = await s.api.get(url.startsWith('http') ? url.slice(s.api.baseUrl.length) : url);
        seen.push(...reply.body.map((i: Instance) => i.id));
        url = nextLink(reply);
        // A newer row between every two pages: it belongs before the first page, not after the cursor.
        if (url && inserted < 3) {
          await instances(1, { name: 'meanwhile' });
          inserted++;
        }
      }
      const all = made.map((i) => i.id).reverse();
      expect(seen).toEqual(all);
      expect(new Set(seen).size).toBe(seen.length);
      await s.db.getRepository(Instance).delete({ projectId: s.owner.projectId, name: 'meanwhile' });
    });

    it('answers at most 100 without a limit, and tells of the rest in the Link', async () => {
      const more = await instances(100, { name: 'bulk' });
      const first = await s.api.get('/v1/instances');
      expect(first.body).toHaveLength(100);
      expect(nextLink(first)).not.toBeNull();
      const all = await walk(s.api, '/v1/instances');
      expect(all.flat()).toHaveLength(107);
      await s.db.getRepository(Instance).delete(more.map((i) => i.id));
    });

    it.each(['0', '1001', '-1', '1.5', 'ten', ''])('refuses limit=%s with a 400 naming it', async (limit) => {
      const reply = await s.api.get(`/v1/instances?limit=${limit}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.message).toMatch(/^limit: /);
    });

    it('takes limit=1 and limit=1000', async () => {
      expect((await s.api.get('/v1/instances?limit=1')).body).toHaveLength(1);
      expect((await s.api.get('/v1/instances?limit=1000')).body).toHaveLength(7);
    });

    it.each(['nope', 'eyJ0IjoiMjAyNiIsImkiOiJ4In0', Buffer.from(JSON.stringify({ t: "2026-01-01'; --", i: randomUUID() })).toString('base64url')])(
      'refuses a cursor it did not issue (%s) with a 400',
      async (cursor) => {
        const reply = await s.api.get(`/v1/instances?cursor=${cursor}`);
        expect(reply.status).toBe(400);
        expect(reply.body.error.message).toBe('cursor: not a cursor this API issued');
      },
    );

    it('filters by status and by name, and refuses an unknown status', async () => {
      const off = await instances(2, { status: 'SHUTOFF', name: 'off' });
      const byStatus = await walk(s.api, '/v1/instances?status=SHUTOFF&limit=1');
      expect(byStatus.flat()).toEqual(off.map((i) => i.id).reverse());
      const byName = await s.api.get('/v1/instances?name=p-3');
      expect(byName.body.map((i: Instance) => i.id)).toEqual([made[3].id]);
      expect((await s.api.get('/v1/instances?name=p-3&status=SHUTOFF')).body).toEqual([]);
      const unknown = await s.api.get('/v1/instances?status=RUNNING');
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/^status: must be one of BUILD, ACTIVE, SHUTOFF, ERROR, DELETING/);
      await s.db.getRepository(Instance).delete(off.map((i) => i.id));
    });

    it('shows no other project its rows', async () => {
      const theirs = await s.stack.http.with({ 'x-api-key': s.other.apiKey }).get('/v1/instances?limit=1000');
      expect(theirs.body).toEqual([]);
    });
  });

  it('links the next page of a lookup as it does a list, next_cursor kept', async () => {
    const first = await s.api.get('/v1/flavors?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(new URL(nextLink(first)!).searchParams.get('cursor')).toBe(first.body.next_cursor);
    const all = await s.api.get('/v1/flavors?limit=100');
    expect(all.body.next_cursor).toBeNull();
    expect(all.headers.get('link')).toBeNull();
  });

  describe('ETags', () => {
    it('tags a list and a get, and answers 304 to If-None-Match while nothing changed', async () => {
      const [one] = await instances(1, { name: 'tagged' });
      for (const path of ['/v1/instances?name=tagged', `/v1/instances/${one.id}`]) {
        const first = await s.api.get(path);
        const etag = first.headers.get('etag');
        expect(etag).toMatch(/^"[\w-]+"$/);
        const again = await s.api.get(path, { 'if-none-match': etag! });
        expect(again.status).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers.get('etag')).toBe(etag);
        expect((await s.api.get(path, { 'if-none-match': `W/${etag}` })).status).toBe(304);
        expect((await s.api.get(path, { 'if-none-match': '"other"' })).status).toBe(200);
      }
      const before = (await s.api.get(`/v1/instances/${one.id}`)).headers.get('etag')!;
      await s.db.getRepository(Instance).update(one.id, { statusReason: 'changed' });
      const after = await s.api.get(`/v1/instances/${one.id}`, { 'if-none-match': before });
      expect(after.status).toBe(200);
      expect(after.body.status_reason).toBe('changed');
    });

    it('tags the platform lists too', async () => {
      const first = await s.cloud.get('/api/cloud/volumes/list');
      expect(first.status).toBe(200);
      expect((await s.cloud.get('/api/cloud/volumes/list', { 'if-none-match': first.headers.get('etag')! })).status).toBe(304);
    });
  });

  describe('long polls', () => {
    it('answers a get as soon as the status changes', async () => {
      const [one] = await instances(1, { name: 'waited', status: 'SHUTOFF' });
      const etag = (await s.api.get(`/v1/instances/${one.id}`)).headers.get('etag')!;
      const polled = timed(() => s.api.get(`/v1/instances/${one.id}?wait=60`, { 'if-none-match': etag }));
      // The poll is waiting (it has not answered) before the change is made.
      const early = await Promise.race([polled.then(() => 'answered'), new Promise((r) => setTimeout(r, 1_000, 'waiting'))]);
      expect(early).toBe('waiting');
      const changedAt = Date.now();
      await s.db.getRepository(Instance).update(one.id, { status: 'ERROR', statusReason: 'woken' });
      const [reply] = await polled;
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ id: one.id, status: 'ERROR', status_reason: 'woken' });
      expect(reply.headers.get('etag')).not.toBe(etag);
      // Woken by the change, well before the 60 s the client offered to wait.
      expect(Date.now() - changedAt).toBeLessThan(30_000);
    });

    it('answers a list when a row of the project changes, and not for another project', async () => {
      const path = '/v1/instances?name=listed&wait=60';
      const first = await s.api.get('/v1/instances?name=listed');
      expect(first.body).toEqual([]);
      const polled = s.api.get(path, { 'if-none-match': first.headers.get('etag')! });
      // Another project's change wakes the watch of neither project.
      await saveBareInstance(s.db, { projectId: s.other.projectId, userId: s.other.userId, status: 'ERROR', name: 'listed' });
      const early = await Promise.race([polled.then(() => 'answered'), new Promise((r) => setTimeout(r, 1_000, 'waiting'))]);
      expect(early).toBe('waiting');
      const [made] = await instances(1, { name: 'listed' });
      const reply = await polled;
      expect(reply.status).toBe(200);
      expect(reply.body.map((i: Instance) => i.id)).toEqual([made.id]);
    });

    it('answers 304 at the end of the wait when nothing changed', async () => {
      const first = await s.api.get('/v1/instances?name=never');
      const [reply, ms] = await timed(() => s.api.get('/v1/instances?name=never&wait=2', { 'if-none-match': first.headers.get('etag')! }));
      expect(reply.status).toBe(304);
      expect(ms).toBeGreaterThanOrEqual(1_900);
    });

    it('answers at once when the ETag is already stale, or there is none', async () => {
      const [reply, ms] = await timed(() => s.api.get('/v1/instances?wait=60', { 'if-none-match': '"stale"' }));
      expect(reply.status).toBe(200);
      const [plain, plainMs] = await timed(() => s.api.get('/v1/instances?wait=60'));
      expect(plain.status).toBe(200);
      // Far below the minute either would have waited.
      expect(ms + plainMs).toBeLessThan(30_000);
    });

    it('takes a new instance to ACTIVE in a few requests, not one per poll interval', async () => {
      const created = await s.api.post('/v1/instances', { name: 'long-polled', ...DEMO_INSTANCE });
      expect(created.status).toBe(202);
      const path = `/v1/instances/${created.body.id}`;
      let last = await s.api.get(path);
      let requests = 1;
      const deadline = Date.now() + 180_000;
      while (last.body.status !== 'ACTIVE') {
        if (last.body.status === 'ERROR' || Date.now() > deadline) throw new Error(`not ACTIVE: ${JSON.stringify(last.body)}`);
        const reply = await s.api.get(`${path}?wait=60`, { 'if-none-match': last.headers.get('etag')! });
        requests++;
        if (reply.status === 200) last = reply;
        else expect(reply.status).toBe(304);
      }
      // One answer per change of the row (status, address, domains...), none in between.
      expect(requests).toBeLessThan(15);
    });

    it(`holds at most LONG_POLL_MAX_WAITERS (${MAX_WAITERS}) polls, and answers one more with 503 and Retry-After`, async () => {
      const [one] = await instances(1, { name: 'capped' });
      const path = `/v1/instances/${one.id}`;
      const etag = (await s.api.get(path)).headers.get('etag')!;
      const held = Array.from({ length: MAX_WAITERS }, () => s.api.get(`${path}?wait=60`, { 'if-none-match': etag }));
      const refused = await waitFor(
        'the cap to be reached',
        async () => {
          // Below the cap this one waits its second and is a 304; at the cap it is refused at once.
          const reply = await s.api.get(`${path}?wait=1`, { 'if-none-match': etag });
          return reply.status === 503 ? reply : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.error.message).toMatch(/^wait: /);
      await s.db.getRepository(Instance).update(one.id, { statusReason: 'released' });
      for (const reply of await Promise.all(held)) expect(reply.status).toBe(200);
      // The places are free again.
      const again = await s.api.get(`${path}?wait=1`, { 'if-none-match': (await s.api.get(path)).headers.get('etag')! });
      expect(again.status).toBe(304);
    });

    it.each(['61', '-1', 'soon'])('refuses wait=%s with a 400 naming it', async (wait) => {
      const reply = await s.api.get(`/v1/instances?wait=${wait}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.message).toMatch(/^wait: /);
    });

    it('answers a database get when it becomes ready', async () => {
      const row = await saveDatabase('waited-db', 'provisioning');
      const first = await s.api.get(`/v1/databases/${row.id}`);
      expect(first.status).toBe(200);
      const polled = s.api.get(`/v1/databases/${row.id}?wait=60`, { 'if-none-match': first.headers.get('etag')! });
      await s.db.getRepository(ManagedDatabase).update(row.id, { status: 'error', statusReason: 'woken' });
      const reply = await polled;
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status: 'error' });
      await s.db.getRepository(ManagedDatabase).delete(row.id);
    });
  });

  /** A relational database row in a status the worker leaves alone (or soon moves past its deadline). */
  async function saveDatabase(name: string, status: ManagedDatabase['status'] = 'error'): Promise<ManagedDatabase> {
    return s.db.getRepository(ManagedDatabase).save({
      engine: 'postgres',
      projectId: s.owner.projectId,
      userId: s.owner.userId,
      name,
      dbName: name,
      dbUser: 'app',
      version: '16',
      extensions: [],
      passwordVerifier: 'none',
      flavorId: 'f-small',
      networkId: 'private',
      keypairName: 'default',
      securityGroupIds: [],
      address: `127.98.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`,
      floatingIp: null,
      port: 5432,
      status,
      statusReason: null,
      // Far away: the reconciler leaves a provisioning row alone until then (the job it looks for is the outbox's).
      provisionDeadline: new Date(Date.now() + 3600_000),
    } as Partial<ManagedDatabase>);
  }

  describe('GET /v1/databases', () => {
    it('pages, filters and refuses an unknown status', async () => {
      const made: ManagedDatabase[] = [];
      for (let i = 0; i < 5; i++) made.push(await saveDatabase(`pg-${i}`));
      const pages = await walk(s.api, '/v1/databases?limit=2&status=error');
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(made.map((d) => String(d.id)).reverse());
      expect((await s.api.get('/v1/databases?name=pg-2')).body.map((d: ManagedDatabase) => d.id)).toEqual([made[2].id]);
      expect((await s.api.get('/v1/cache?limit=5')).body).toEqual([]);
      const unknown = await s.api.get('/v1/databases?status=ACTIVE');
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/^status: /);
    });
  });

  describe('the platform surface', () => {
    it('pages and filters /api/cloud/volumes/list', async () => {
      const made: Volume[] = [];
      for (let i = 0; i < 5; i++) {
        made.push(
          await s.db.getRepository(Volume).save({ projectId: s.owner.projectId, userId: s.owner.userId, name: `v-${i}`, description: null, sizeGb: 1, status: 'available' }),
        );
      }
      const pages = await walk(s.cloud, '/api/cloud/volumes/list?limit=2');
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(made.map((v) => v.id).reverse());
      expect((await s.cloud.get('/api/cloud/volumes/list?status=available&name=v-1')).body.map((v: Volume) => v.id)).toEqual([made[1].id]);
      expect((await s.cloud.get('/api/cloud/volumes/list?status=gone')).status).toBe(400);
      expect((await s.cloud.get('/api/cloud/volumes/list?limit=0')).status).toBe(400);
    });

    it('pages /api/cloud/dns/list and long-polls it', async () => {
      // A project of its own: instances made through the api elsewhere in this file have proxy hosts too.
      const t = await createTenant(s.db);
      const cloud = s.stack.http.with({ authorization: `Bearer ${t.token}` });
      const target = await saveBareInstance(s.db, { projectId: t.projectId, userId: t.userId, status: 'ERROR', name: 'dns-target' });
      const hosts: ProxyHost[] = [];
      for (let i = 0; i < 3; i++) {
        hosts.push(
          await s.db
            .getRepository(ProxyHost)
            .save({ hostname: `page-${i}-${randomUUID().slice(0, 8)}.localhost`, projectId: t.projectId, userId: t.userId, instanceId: target.id, forwardPort: 3000 }),
        );
      }
      const pages = await walk(cloud, '/api/cloud/dns/list?limit=2');
      expect(pages.flat()).toEqual(hosts.map((h) => h.id).reverse());
      expect(pages.map((p) => p.length)).toEqual([2, 1]);

      const first = await cloud.get('/api/cloud/dns/list?limit=1');
      const polled = cloud.get('/api/cloud/dns/list?limit=1&wait=60', { 'if-none-match': first.headers.get('etag')! });
      const added = await s.db
        .getRepository(ProxyHost)
        .save({ hostname: `late-${randomUUID().slice(0, 8)}.localhost`, projectId: t.projectId, userId: t.userId, instanceId: target.id, forwardPort: 3000 });
      const reply = await polled;
      expect(reply.status).toBe(200);
      expect(reply.body.map((h: ProxyHost) => h.id)).toEqual([added.id]);
    });
  });
});
