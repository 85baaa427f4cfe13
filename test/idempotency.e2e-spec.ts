import { IdempotencyKey, IdempotencyKeys } from '@stratus/core';
import { createTenant, DB_PLACEMENT, DEMO_INSTANCE, HttpClient, recordIssuedPassword, Reply, Tenant, TestStack, testDataSource, waitFor } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';

/** What idempotency.interceptor.ts puts where a replayed answer had its password. */
const ISSUED_ONCE = 'issued once, in the first answer to this Idempotency-Key';

const newKey = () => randomUUID();
/** A resource name from a key: lowercase letters only, as database names require. */
const nameOf = (key: string) => `idem-${key.slice(0, 8).replace(/\d/g, (d) => 'ghijklmnop'[Number(d)])}`;

/** The api alone: a create's row and its answer are all these tests look at, and no job needs to run. */
describe('Idempotency-Key on creates', () => {
  let stack: TestStack;
  let db: DataSource;
  let owner: Tenant;
  let other: Tenant;
  let api: HttpClient;
  let cloud: HttpClient;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    owner = await createTenant(db);
    other = await createTenant(db);
    api = stack.http.with({ 'x-api-key': owner.apiKey });
    cloud = stack.http.with({ authorization: `Bearer ${owner.token}` });
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  const cachesNamed = (name: string, projectId = owner.projectId) => db.query(`SELECT id FROM managed_databases WHERE project_id = $1 AND name = $2`, [projectId, name]);
  const volumesNamed = (name: string, projectId = owner.projectId) => db.query(`SELECT id FROM volumes WHERE project_id = $1 AND name = $2`, [projectId, name]);

  /** The claim of `key` once a request holds it, or once another than `other`'s holder does. */
  const claimOf = (key: string, other?: IdempotencyKey) =>
    waitFor(
      other ? 'the claim to change hands' : 'a request to claim its key',
      async () => {
        const claim = await db.getRepository(IdempotencyKey).findOneBy({ key });
        return claim && claim.holder !== other?.holder ? claim : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20 },
    );

  /**
   * Sends a volume create with `key` while inserts into volumes wait, so it
   * claims its key and cannot commit; runs `meanwhile` with its claim, then
   * lets it go and returns its answer.
   */
  async function heldCreate(key: string, name: string, meanwhile: (claim: IdempotencyKey) => Promise<void>): Promise<Reply> {
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    let first!: Promise<Reply>;
    try {
      await runner.query('LOCK TABLE volumes IN EXCLUSIVE MODE');
      first = cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      await meanwhile(await claimOf(key));
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    return first;
  }

  it('replays the first answer to the same key and body: one resource, the password replaced by a note', async () => {
    const key = newKey();
    const body = { ...DB_PLACEMENT, name: nameOf(key) };
    const first = await api.post('/v1/cache', body, { 'idempotency-key': key });
    recordIssuedPassword(first.body?.password);
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(first.body.password).toEqual(expect.any(String));
    expect(first.body.password).not.toBe(ISSUED_ONCE);

    // The same body with its fields in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await api.post('/v1/cache', reordered, { 'idempotency-key': key });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, password: ISSUED_ONCE });
    expect(await cachesNamed(body.name)).toHaveLength(1);

    // What is kept holds no password.
    const [row] = await db.getRepository(IdempotencyKey).findBy({ key });
    expect(row.statusCode).toBe(202);
    expect(JSON.stringify(row.response)).not.toContain(first.body.password);
  });

  it('answers 422 to the same key with another body, and creates nothing', async () => {
    const key = newKey();
    const name = nameOf(key);
    expect((await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key })).status).toBe(201);
    const other = await cloud.post('/api/cloud/volumes/create', { name: `${name}-b`, size: 1 }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body.error).toEqual({ code: 'unprocessable_entity', message: expect.stringContaining('Idempotency-Key') });
    expect(await volumesNamed(`${name}-b`)).toHaveLength(0);
  });

  it('answers 409 to a retry while the first request is still running, then replays its answer', async () => {
    const key = newKey();
    const name = nameOf(key);
    const answered = await heldCreate(key, name, async () => {
      const retry = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      expect(retry.status).toBe(409);
      expect(retry.body.error.message).toContain('still in progress');
      expect(retry.headers.get('retry-after')).toBe('1');
    });
    expect(answered.status).toBe(201);
    const replay = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(answered.body);
    expect(await volumesNamed(name)).toHaveLength(1);
  });

  it("marks the claim committed in each create's own transaction", async () => {
    const creates: Array<[HttpClient, string, Record<string, unknown>]> = [
      [api, '/v1/instances', { name: 'idem-marked', ...DEMO_INSTANCE }],
      [api, '/v1/cache', { ...DB_PLACEMENT, name: nameOf(newKey()) }],
      [cloud, '/api/cloud/volumes/create', { name: nameOf(newKey()), size: 1 }],
    ];
    for (const [client, path, body] of creates) {
      const key = newKey();
      const created = await client.post(path, body, { 'idempotency-key': key });
      recordIssuedPassword(created.body?.password);
      expect([path, created.status < 300]).toEqual([path, true]);
      const [row] = await db.getRepository(IdempotencyKey).findBy({ key });
      expect([path, row.committedAt]).toEqual([path, expect.any(Date)]);
    }
  });

  it('never runs a committed create again, though its answer was never kept', async () => {
    const key = `lost-answer-${newKey()}`;
    const name = nameOf(newKey());
    // Keeping the answer fails, as it never happens when the api dies between the create's commit and keeping it.
    await db.query(`CREATE FUNCTION stratus_test_refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status_code IS NOT NULL AND NEW.key LIKE 'lost-answer-%' THEN RAISE EXCEPTION 'the test refuses this answer'; END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER stratus_test_refuse_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION stratus_test_refuse_answer()`);
    try {
      const first = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const [claim] = await db.query(`SELECT status_code, committed_at FROM idempotency_keys WHERE key = $1`, [key]);
      expect(claim).toEqual({ status_code: null, committed_at: expect.any(Date) });

      // Right after, the answer may still be on its way.
      const soon = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      expect(soon.status).toBe(409);
      expect(soon.body.error.message).toContain('still in progress');

      // Long after, when a claim that never committed would be taken over.
      await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '1 hour', committed_at = now() - interval '1 hour' WHERE key = $1`, [key]);
      const late = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      expect(late.status).toBe(409);
      expect(late.body.error).toEqual({ code: 'conflict', message: expect.stringContaining('it is not created again') });
      expect(late.headers.get('retry-after')).toBeNull();
      expect(await volumesNamed(name)).toHaveLength(1);
    } finally {
      await db.query(`DROP TRIGGER stratus_test_refuse_answer ON idempotency_keys`);
      await db.query(`DROP FUNCTION stratus_test_refuse_answer()`);
    }
  });

  it('takes over a claim whose process died before its create committed', async () => {
    const seen = newKey();
    expect((await cloud.post('/api/cloud/volumes/create', { name: nameOf(seen), size: 1 }, { 'idempotency-key': seen })).status).toBe(201);
    const [{ scope }] = await db.query(`SELECT scope FROM idempotency_keys WHERE key = $1`, [seen]);
    // What a process that died mid-create leaves: a claim with no answer and no commit, 30 s old and a little more.
    const key = newKey();
    const name = nameOf(key);
    await db.query(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, holder, created_at, expires_at)
       VALUES ($1, $2, 'left by a process that died', $3, now() - interval '40 seconds', now() + interval '1 day')`,
      [scope, key, randomUUID()],
    );
    const retry = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('false');
    expect(await volumesNamed(name)).toHaveLength(1);
  });

  it('makes the resource once when a retry takes over the claim of a first request still running: the first fails at its commit', async () => {
    const key = newKey();
    const name = nameOf(key);
    let retry: Promise<Reply> | undefined;
    const first = await heldCreate(key, name, async (claim) => {
      // Held up past the takeover time, as a request stuck that long looks dead.
      await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '1 minute' WHERE key = $1`, [key]);
      retry = cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
      await claimOf(key, claim);
    });
    const retried = await retry!;
    expect(retried.status).toBe(201);
    expect(first.status).toBe(409);
    expect(first.body.error.message).toContain('took its claim over');
    expect(await volumesNamed(name)).toEqual([{ id: retried.body.id }]);
    // The first's failure released nothing of the retry's claim: its answer is kept and replayed.
    const replay = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retried.body);
  });

  it('runs many concurrent retries of one key once', async () => {
    const key = newKey();
    const name = nameOf(key);
    const answers = await Promise.all(Array.from({ length: 8 }, () => cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key })));
    expect(answers.map((a) => a.status).every((s) => s === 201 || s === 409)).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of created) expect(a.body.id).toBe(created[0].body.id);
    expect(await volumesNamed(name)).toHaveLength(1);
  });

  it("keeps another project's equal key apart", async () => {
    const key = newKey();
    const body = { ...DB_PLACEMENT, name: nameOf(key) };
    const mine = await api.post('/v1/cache', body, { 'idempotency-key': key });
    recordIssuedPassword(mine.body?.password);
    expect(mine.status).toBe(202);
    const theirs = await stack.http.with({ 'x-api-key': other.apiKey }).post('/v1/cache', body, { 'idempotency-key': key });
    recordIssuedPassword(theirs.body?.password);
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBe('false');
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.password).not.toBe(ISSUED_ONCE);
    expect(await cachesNamed(body.name, other.projectId)).toHaveLength(1);
  });

  it('answers 400 to a malformed key, before creating anything', async () => {
    const name = nameOf(newKey());
    for (const bad of ['x'.repeat(256), 'with space', 'a"b', '"', '']) {
      const res = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': bad });
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body.error.message).toContain('Idempotency-Key');
    }
    expect(await volumesNamed(name)).toHaveLength(0);
    // The draft's quoted form and the longest key are keys.
    expect((await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': `"${newKey()}"` })).status).toBe(201);
    expect((await cloud.post('/api/cloud/volumes/create', { name: `${name}-l`, size: 1 }, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
  });

  it('releases the key of a create that failed, so a corrected retry runs', async () => {
    const key = newKey();
    const name = nameOf(key);
    const bad = await cloud.post('/api/cloud/volumes/create', { name, size: 0 }, { 'idempotency-key': key });
    expect(bad.status).toBe(400);
    expect(await db.getRepository(IdempotencyKey).findOneBy({ key })).toBeNull();
    const good = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBe('false');
  });
});

describe('Idempotency-Key past IDEMPOTENCY_TTL_MS', () => {
  /** The smallest TTL the config accepts (@Min(1000) in app.config.ts). */
  const TTL_MS = 1000;
  let stack: TestStack;
  let db: DataSource;
  let cloud: HttpClient;

  beforeAll(async () => {
    stack = await TestStack.start({ IDEMPOTENCY_TTL_MS: String(TTL_MS) }, ['api']);
    db = await testDataSource();
    const owner = await createTenant(db);
    cloud = stack.http.with({ authorization: `Bearer ${owner.token}` });
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  it('treats an expired key as new, and the prune deletes it', async () => {
    const key = newKey();
    const name = nameOf(key);
    const first = await cloud.post('/api/cloud/volumes/create', { name, size: 1 }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const [kept] = await db.query(`SELECT expires_at - created_at AS ttl FROM idempotency_keys WHERE key = $1`, [key]);
    expect(kept.ttl).toMatchObject({ seconds: 1 });

    await waitFor('the key to expire', async () => (await db.query(`SELECT 1 FROM idempotency_keys WHERE key = $1 AND expires_at <= now()`, [key])).length > 0, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    // Expired, so another body is a new request rather than a 422.
    const again = await cloud.post('/api/cloud/volumes/create', { name: `${name}-2`, size: 1 }, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('false');
    expect(again.body.id).not.toBe(first.body.id);

    await waitFor('the second claim to expire', async () => (await db.query(`SELECT 1 FROM idempotency_keys WHERE key = $1 AND expires_at <= now()`, [key])).length > 0, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    expect(await new IdempotencyKeys(db).prune()).toBeGreaterThanOrEqual(1);
    expect(await db.query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key])).toHaveLength(0);
  });
});
