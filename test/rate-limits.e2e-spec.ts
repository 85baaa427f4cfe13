import { ProjectsService } from '@stratus/core';
import { createTenant, HttpClient, Reply, signTestToken, testConfig, useSuite, waitFor } from '@stratus/testing';

/**
 * Tight limits for the spawned api: 2 requests a second per credential with
 * a burst of 5, and 1 a second with a burst of 6 per project. Each case uses
 * projects of its own, so the buckets start full.
 */
const LIMITS = {
  RATE_LIMIT_CREDENTIAL_PER_SECOND: '2',
  RATE_LIMIT_CREDENTIAL_BURST: '5',
  RATE_LIMIT_PROJECT_PER_SECOND: '1',
  RATE_LIMIT_PROJECT_BURST: '6',
};

describe('rate limits', () => {
  const s = useSuite(LIMITS, ['api']);

  const statuses = (replies: Reply[]) => replies.map((r) => r.status);
  /** `n` requests one after another (sequential, so the count is exact). */
  async function burst(client: HttpClient, path: string, n: number): Promise<Reply[]> {
    const replies: Reply[] = [];
    for (let i = 0; i < n; i++) replies.push(await client.get(path));
    return replies;
  }
  const keyClient = (key: string) => s.stack.http.with({ 'x-api-key': key });

  it('per API key: the burst passes, the next is 429 with Retry-After and retry_after, and it recovers after the wait', async () => {
    const t = await createTenant(s.db);
    const api = keyClient(t.apiKey);
    const replies = await burst(api, '/v1/flavors', 6);
    expect(statuses(replies).slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = replies[5];
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.body.error).toEqual({ code: 'rate_limited', message: expect.stringMatching(/2 requests per second per API key/), retry_after: retryAfter });
    // Refused requests cost nothing: after the wait the key is served again.
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    await waitFor('the key to be served again', async () => (await api.get('/v1/flavors')).status === 200, { timeoutMs: 10_000, intervalMs: 200 });
  });

  it('per project: two keys of one project share its limit; another project is unaffected', async () => {
    const t = await createTenant(s.db);
    const second = await new ProjectsService(s.db, testConfig()).issueApiKey(t.projectId, t.userId, 'second');
    const [a, b] = [keyClient(t.apiKey), keyClient(second.key)];
    // Each key stays within its own burst of 5; together they pass the project's 6.
    const first = await burst(a, '/v1/flavors', 4);
    const then = await burst(b, '/v1/flavors', 5);
    expect(statuses(first)).toEqual([200, 200, 200, 200]);
    const refused = then.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0].body.error.message).toMatch(/per project/);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const other = await createTenant(s.db);
    expect(statuses(await burst(keyClient(other.apiKey), '/v1/flavors', 5))).toEqual([200, 200, 200, 200, 200]);
  });

  it('per token subject on /api/cloud: every token of the subject shares one bucket', async () => {
    const t = await createTenant(s.db);
    // Two tokens of the same subject: one bucket.
    const one = s.stack.http.with({ authorization: `Bearer ${t.token}` });
    const two = s.stack.http.with({ authorization: `Bearer ${signTestToken({ project_id: t.projectId, sub: t.userId, nonce: 'two' })}` });
    const replies = [...(await burst(one, '/api/cloud/volumes/list', 3)), ...(await burst(two, '/api/cloud/volumes/list', 3))];
    expect(statuses(replies)).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = replies[5];
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/per token subject/) });
    expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.error.retry_after);

    // Another subject of the same project has its own bucket (the project's 6 is not spent yet).
    const colleague = s.stack.http.with({ authorization: `Bearer ${signTestToken({ project_id: t.projectId, sub: 'colleague' })}` });
    expect((await colleague.get('/api/cloud/volumes/list')).status).toBe(200);
  });

  it('tokens without a subject share a bucket per project, not one across projects', async () => {
    const [x, y] = [await createTenant(s.db), await createTenant(s.db)];
    const subless = (projectId: string) => s.stack.http.with({ authorization: `Bearer ${signTestToken({ project_id: projectId })}` });
    expect(statuses(await burst(subless(x.projectId), '/api/cloud/volumes/list', 6))).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await subless(y.projectId).get('/api/cloud/volumes/list')).status).toBe(200);
  });

  it('a request the credential check refuses is 401, not counted against anyone', async () => {
    const bad = keyClient('sk_nope_nope');
    expect(statuses(await burst(bad, '/v1/flavors', 8))).toEqual(Array(8).fill(401));
  });
});
