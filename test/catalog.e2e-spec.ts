import { Flavor, forgetProjectImage, Image, Keypair, Network, recordProjectImage, SecurityGroup, syncCatalog } from '@stratus/core';
import { createTenant, Tenant, TestStack, testDataSource } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull } from 'typeorm';

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

  it("a project's own image (a snapshot) is listed and bootable for that project alone, and the catalog sync keeps it", async () => {
    const other = await createTenant(db);
    const image = { id: `snap-${randomUUID()}`, name: 'web, as it was', description: 'snapshot of an instance', projectId: tenant.projectId };
    expect(await recordProjectImage(db.manager, image)).toBe(true);
    expect(await recordProjectImage(db.manager, image)).toBe(true);
    // Never taken over: not by another project, not from the provider's catalog.
    expect(await recordProjectImage(db.manager, { ...image, projectId: other.projectId })).toBe(false);
    expect(await recordProjectImage(db.manager, { ...image, id: 'plain' })).toBe(false);

    const ids = async (t: Tenant) => ((await stack.http.get('/v1/images?limit=100', { 'x-api-key': t.apiKey })).body.items as Array<{ id: string }>).map((i) => i.id);
    const mine = (await stack.http.get('/v1/images?limit=100', { 'x-api-key': tenant.apiKey })).body.items;
    expect(mine).toContainEqual({ id: image.id, name: image.name, description: image.description, visibility: 'private' });
    expect(mine.find((i: { id: string }) => i.id === 'plain')).toMatchObject({ visibility: 'public' });
    expect(await ids(other)).not.toContain(image.id);
    expect(await ids(other)).toContain('plain');

    const boot = { name: 'from-snapshot', image_id: image.id, flavor_id: 'm1.small', network_id: 'private', keypair_name: 'default' };
    const refused = await stack.http.post('/v1/instances', boot, { 'x-api-key': other.apiKey });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining('image_id') });

    // The provider's catalog, synced again as the worker does: the project's image stays, the public ones too.
    const publicImages = await db.getRepository(Image).findBy({ projectId: IsNull() });
    await db.transaction(async (m) =>
      syncCatalog(m, {
        flavors: await m.find(Flavor),
        images: publicImages,
        networks: await m.find(Network),
        keypairs: await m.find(Keypair),
        securityGroups: await m.find(SecurityGroup),
      }),
    );
    expect(await ids(tenant)).toEqual(expect.arrayContaining([image.id, 'plain']));

    await forgetProjectImage(db.manager, image.id, other.projectId);
    expect(await ids(tenant)).toContain(image.id);
    await forgetProjectImage(db.manager, image.id, tenant.projectId);
    expect(await ids(tenant)).not.toContain(image.id);
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
