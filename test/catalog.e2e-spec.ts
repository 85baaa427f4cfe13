import { createTenant, Tenant, TestStack, testDataSource } from '@stratus/testing';
import { DataSource } from 'typeorm';

describe('lookup resources', () => {
  let stack: TestStack;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    tenant = await createTenant(db);
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  const get = (path: string) => stack.http.get(path, { 'x-api-key': tenant.apiKey });

  it('pages through every flavor with the cursor, each exactly once', async () => {
    const all = (await get('/v1/flavors?limit=100')).body;
    expect(all.next_cursor).toBeNull();
    expect(all.items.length).toBeGreaterThanOrEqual(6);
    for (const f of all.items) {
      expect(f).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        vcpus: expect.any(Number),
        ram_mb: expect.any(Number),
        disk_gb: expect.any(Number),
      });
    }

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/v1/flavors?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((f: { id: string }) => f.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(all.items.length / 2));
    expect(seen).toEqual(all.items.map((f: { id: string }) => f.id));
  });

  it('lists security groups with their rules', async () => {
    const res = await get('/v1/security_groups');
    expect(res.status).toBe(200);
    const def = res.body.items.find((g: { name: string }) => g.name === 'default');
    expect(def).toMatchObject({ id: expect.any(String), description: expect.any(String) });
    for (const rule of res.body.items.flatMap((g: { rules: unknown[] }) => g.rules)) {
      expect(['ingress', 'egress']).toContain(rule.direction);
      expect(['tcp', 'udp', 'icmp', 'all']).toContain(rule.protocol);
      if (rule.protocol === 'all') {
        expect(rule).not.toHaveProperty('port');
        expect(rule).not.toHaveProperty('cidr');
      }
    }
  });

  it.each(['/v1/images', '/v1/networks', '/v1/keypairs'])('%s lists what instance creation refers to', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(res.body).toHaveProperty('next_cursor', null);
  });

  it.each([
    ['limit=0', 'limit: must not be less than 1'],
    ['limit=101', 'limit: must not be greater than 100'],
    ['limit=abc', 'limit: must be an integer'],
    ['cursor=garbage', 'cursor: not a cursor this API issued'],
    ['limit=1&limit=2', 'limit: must be given once'],
    ['color=blue', 'color: property color should not exist'],
  ])('400 for ?%s', async (query, message) => {
    const res = await get(`/v1/flavors?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining(message) });
  });

  it.each(['/v1/flavors', '/v1/security_groups', '/v1/images'])('401 on %s without a key', async (path) => {
    expect((await stack.http.get(path)).status).toBe(401);
  });
});
