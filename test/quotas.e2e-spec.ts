import { ProjectQuotas } from '@stratus/core';
import { createTenant, DB_PLACEMENT, DEMO_INSTANCE, HttpClient, recordIssuedPassword, testConfig, useSuite } from '@stratus/testing';

/**
 * Quotas with tight limits for the spawned api. The api alone: a create's
 * row is what a quota counts, and no job needs to run for it.
 */
const LIMITS = { QUOTA_INSTANCES: '3', QUOTA_CACHES: '2', QUOTA_VOLUME_GB: '10', QUOTA_PROXY_HOSTS: '100' };

describe('quotas', () => {
  const s = useSuite(LIMITS, ['api']);

  /** A fresh project (so each case starts at zero) with a /v1 and an /api/cloud client. */
  async function project(): Promise<{ projectId: string; api: HttpClient; cloud: HttpClient }> {
    const t = await createTenant(s.db);
    return { projectId: t.projectId, api: s.stack.http.with({ 'x-api-key': t.apiKey }), cloud: s.stack.http.with({ authorization: `Bearer ${t.token}` }) };
  }
  const count = async (sql: string, projectId: string) => Number((await s.db.query(sql, [projectId]))[0].n);
  const instances = (projectId: string) => count(`SELECT count(*) AS n FROM instances WHERE project_id = $1`, projectId);
  const caches = (projectId: string) => count(`SELECT count(*) AS n FROM managed_databases WHERE project_id = $1 AND engine = 'redis'`, projectId);
  const outbox = (projectId: string) => count(`SELECT count(*) AS n FROM outbox o JOIN instances i ON o.payload->>'instanceId' = i.id::text WHERE i.project_id = $1`, projectId);
  const createInstance = (api: HttpClient, name: string) => api.post('/v1/instances', { name, ...DEMO_INSTANCE });
  const createCache = async (api: HttpClient, name: string) => {
    const res = await api.post('/v1/cache', { ...DB_PLACEMENT, name });
    recordIssuedPassword(res.body?.password);
    return res;
  };

  it('instances: up to the limit created, one more is 403 quota_exceeded naming the quota, limit and usage, and changes nothing', async () => {
    const p = await project();
    for (let i = 0; i < 3; i++) expect((await createInstance(p.api, `q-${i}`)).status).toBe(202);
    const jobsBefore = await outbox(p.projectId);
    const over = await createInstance(p.api, 'q-over');
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('quota_exceeded');
    expect(over.body.error.message).toMatch(/instances/);
    expect(over.body.error.message).toMatch(/limit 3 instances, in use 3/);
    expect(await instances(p.projectId)).toBe(3);
    expect(await outbox(p.projectId)).toBe(jobsBefore);
    // Nor did its proxy host stay behind.
    expect(await count(`SELECT count(*) AS n FROM proxy_hosts WHERE project_id = $1`, p.projectId)).toBe(3);
  });

  it('another project has its own count', async () => {
    const a = await project();
    const b = await project();
    for (let i = 0; i < 3; i++) expect((await createInstance(a.api, `a-${i}`)).status).toBe(202);
    expect((await createInstance(a.api, 'a-over')).status).toBe(403);
    expect((await createInstance(b.api, 'b-0')).status).toBe(202);
  });

  it('concurrent creates at the edge: exactly the limit is created, the rest refused', async () => {
    const p = await project();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => createInstance(p.api, `race-${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((x) => x === 202)).toHaveLength(3);
    expect(statuses.filter((x) => x === 403)).toHaveLength(9);
    expect(answers.filter((a) => a.status === 403).every((a) => a.body.error.code === 'quota_exceeded')).toBe(true);
    expect(await instances(p.projectId)).toBe(3);
  });

  it('caches: a per-engine quota, concurrent creates at the edge included', async () => {
    const p = await project();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createCache(p.api, `cache-${'abcdefgh'[i]}`)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(6);
    expect(refused[0].body.error).toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/caches \(limit 2 cache instances, in use 2/) });
    expect(await caches(p.projectId)).toBe(2);
    // The relational databases' quota is another one.
    const db = await p.api.post('/v1/databases', { ...DB_PLACEMENT, name: 'rel' });
    recordIssuedPassword(db.body?.db_password);
    expect(db.status).toBe(202);
  });

  it('volume GiB on /api/cloud: a volume that would pass the total is refused, a smaller one fits', async () => {
    const p = await project();
    expect((await p.cloud.post('/api/cloud/volumes/create', { name: 'v1', size: 6 })).status).toBe(201);
    const over = await p.cloud.post('/api/cloud/volumes/create', { name: 'v2', size: 5 });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/volume_gb \(limit 10 GiB of volumes, in use 6, this request needs 5 more\)/) });
    expect((await p.cloud.post('/api/cloud/volumes/create', { name: 'v3', size: 4 })).status).toBe(201);
    expect(await count(`SELECT coalesce(sum(size_gb), 0) AS n FROM volumes WHERE project_id = $1`, p.projectId)).toBe(10);
  });

  it("an operator's limit for one project (cli quota:set) overrides the default; quota:list shows limits and usage", async () => {
    const p = await project();
    expect(JSON.parse(s.stack.cli('quota:set', p.projectId, 'instances', '5'))).toEqual({ project_id: p.projectId, quota: 'instances', limit: 5 });
    for (let i = 0; i < 5; i++) expect((await createInstance(p.api, `raised-${i}`)).status).toBe(202);
    const over = await createInstance(p.api, 'raised-over');
    expect(over.status).toBe(403);
    expect(over.body.error.message).toMatch(/limit 5 instances, in use 5/);
    expect(s.stack.cli('quota:list', p.projectId)).toMatch(/^instances\s+5 of 5$/m);
    expect(s.stack.cli('quota:list', p.projectId)).toMatch(/^caches\s+0 of 2 \(default\)$/m);

    s.stack.cli('quota:set', p.projectId, 'instances', 'default');
    expect((await new ProjectQuotas(s.db, testConfig(LIMITS)).usage(p.projectId)).find((q) => q.quota === 'instances')).toEqual({
      quota: 'instances',
      limit: 3,
      used: 5,
      custom: false,
    });
    expect(() => s.stack.cli('quota:set', p.projectId, 'nope', '1')).toThrow(/quota: must be one of instances, databases/);
    expect(() => s.stack.cli('quota:set', p.projectId, 'instances', '-1')).toThrow(/a whole number/);
  });
});
