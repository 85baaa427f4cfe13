import { Instance } from '@stratus/core';
import {
  addressHeld,
  catalogFixtures,
  DEMO_INSTANCE,
  inCatalogNetwork,
  instanceBacked,
  itReal,
  providerUnderTest,
  realResources,
  saveBareInstance,
  useSuite,
  waitFor,
  waitForInstance,
  whenBacked,
  whenReal,
  withFullNetwork,
} from '@stratus/testing';

describe(`compute instances on the ${providerUnderTest()} provider`, () => {
  const s = useSuite();
  // The provider's images, flavor, network and keypair: the same suite on every provider.
  const fx = catalogFixtures();

  it('creates a demo instance that reaches ACTIVE and serves from inside', async () => {
    const created = await s.api.post('/v1/instances', { name: 'web-1', ...DEMO_INSTANCE });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'web-1',
      status: 'building',
      image_id: fx.demoImage,
      flavor_id: fx.flavorId,
      network_id: fx.network,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const active = await waitForInstance(s.api, created.body.id);
    expect(active).toMatchObject({
      name: 'web-1',
      status: 'ACTIVE',
      state: 'active',
      image_id: fx.demoImage,
      flavor_id: fx.flavorId,
      user_id: s.owner.userId,
      project_id: s.owner.projectId,
      metadata: { isPublic: 'false', enableSSH: 'false', privateIp: expect.any(String) },
    });
    expect(Object.keys(active).sort()).toEqual(
      ['created', 'flavor_id', 'id', 'image_id', 'metadata', 'name', 'project_id', 'state', 'status', 'status_reason', 'updated', 'user_id'].sort(),
    );
    // An address of the network's range (the local provider's pool, the testbed's tenant subnet).
    expect(await inCatalogNetwork(s.db, fx.network, active.metadata.privateIp)).toBe(true);
    expect(active.metadata.resourceLimits).toMatch(fx.flavorLimits);

    // Served from inside: a real process's answer, on the local provider only (no guest runs on the
    // fake provider, nor on the testbed's Nova, whose addresses nothing may connect to).
    await whenReal(async () => {
      const res = await fetch(`http://${active.metadata.privateIp}:3000/`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).instance).toBe(created.body.id);
    });
  });

  // That the port answers and user_data ran is seen on the local provider only: the fake one runs
  // nothing, and nothing may connect to the testbed's servers (Nova's fake driver runs no guest).
  it('exports a custom app port and runs user_data at first boot', async () => {
    const created = await s.api.post('/v1/instances', {
      name: 'web-port',
      ...DEMO_INSTANCE,
      port: '8081',
      user_data: '#!/bin/sh\necho first-boot > "$HOME/marker.txt"\n',
    });
    const active = await waitForInstance(s.api, created.body.id);
    await whenReal(async () => expect((await fetch(`http://${active.metadata.privateIp}:8081/health`)).status).toBe(200));
    const detail = await s.api.get(`/v1/instances/${created.body.id}`);
    expect(detail.body).toMatchObject({ port: '8081', network_id: fx.network, keypair_name: fx.keypair, address: active.metadata.privateIp });
  });

  // A boot that fails as the provider's do: a user_data that exits (local), a server Nova puts in
  // ERROR (the testbed). The fake provider's failed boots are injected in its worker.
  (fx.failedBoot ? it : it.skip)('ends in ERROR with the reason when boot fails', async () => {
    const created = await s.api.post('/v1/instances', { name: 'broken', ...DEMO_INSTANCE, ...fx.failedBoot!.fields });
    const failed = await waitForInstance(s.api, created.body.id, ['ERROR', 'ACTIVE']);
    expect(failed.status).toBe('ERROR');
    expect(failed.state).toBe('stopped');
    for (const reason of fx.failedBoot!.reasons) expect(failed.status_reason).toContain(reason);
  });

  // Filling the network takes the local provider's leases (the contract suite has the fake's full network).
  itReal('ends in ERROR with a reason naming the network when it has no free address; a later create gets one', async () => {
    const [{ cidr }] = await s.db.query(`SELECT cidr FROM networks WHERE id = 'private'`);
    const created = await withFullNetwork(s.db, cidr, async () => {
      const res = await s.api.post('/v1/instances', { name: 'no-room', ...DEMO_INSTANCE });
      // Accepted: the network assigns addresses in the worker, as a cloud's port create does.
      expect(res.status).toBe(202);
      const failed = await waitForInstance(s.api, res.body.id, ['ERROR', 'ACTIVE']);
      expect([failed.status, failed.status_reason]).toEqual(['ERROR', `network private has no free address left (${cidr}); delete a server on it or use another network`]);
      expect(failed.metadata.privateIp).toBeUndefined();
      expect((await s.api.get(`/v1/instances/${res.body.id}`)).body.address).toBeNull();
      return res.body;
    });
    expect(await addressHeld(s.db, s.stack.env.DATA_DIR, created.id)).toBeNull();
    const next = await s.api.post('/v1/instances', { name: 'room-again', ...DEMO_INSTANCE });
    expect((await waitForInstance(s.api, next.body.id)).metadata.privateIp).toEqual(expect.any(String));
    for (const id of [created.id, next.body.id]) expect((await s.api.delete(`/v1/instances/${id}`)).status).toBe(204);
  });

  /**
   * Resolves once the worker has judged every live instance against what its provider
   * runs, twice over: a row with nothing behind it, ACTIVE, goes SHUTOFF at a sweep
   * (waited for one after another, the second was made after the first sweep had read
   * the table, so a whole sweep ran between them).
   */
  async function twoSweeps(): Promise<void> {
    for (const n of [1, 2]) {
      const bare = await saveBareInstance(s.db, { projectId: s.owner.projectId, userId: s.owner.userId, name: `bare-${n}` });
      try {
        await waitFor(`a sweep to find bare instance ${n} not running`, async () => (await s.db.getRepository(Instance).findOneByOrFail({ id: bare.id })).status === 'SHUTOFF', {
          timeoutMs: 60_000,
        });
      } finally {
        await s.db.getRepository(Instance).delete({ id: bare.id });
      }
    }
  }

  it('keeps instances running and ACTIVE across a worker restart, and adopts them', async () => {
    const created = await s.api.post('/v1/instances', { name: 'survivor', ...DEMO_INSTANCE });
    const active = await waitForInstance(s.api, created.body.id);
    const pidBefore = realResources() ? ((await (await fetch(`http://${active.metadata.privateIp}:3000/`)).json()) as any).pid : undefined;

    await s.stack.stopService('worker', 'SIGKILL');
    await s.stack.startService('worker');
    // However long its boot takes: it adopts what runs once its processors consume their queues.
    await s.stack.workerReady();

    // The new worker has looked at it (the fake provider's instances outlive its worker as a real one's do).
    await twoSweeps();
    const after = await s.api.get(`/v1/instances/${created.body.id}`);
    expect(after.body).toMatchObject({ status: 'ACTIVE', status_reason: null });
    // The same process, watched: a real instance's only.
    await whenReal(async () => {
      const res = (await (await fetch(`http://${active.metadata.privateIp}:3000/`)).json()) as any;
      expect(res.pid).toBe(pidBefore);

      // Adopted means watched: when the process dies, status follows.
      process.kill(pidBefore, 'SIGKILL');
      const stopped = await waitForInstance(s.api, created.body.id, ['SHUTOFF'], 60_000);
      expect(stopped.state).toBe('stopped');
    });
  });

  it('deletes an instance: its processes end and it leaves the list', async () => {
    const created = await s.api.post('/v1/instances', { name: 'doomed', ...DEMO_INSTANCE });
    const active = await waitForInstance(s.api, created.body.id);
    await whenBacked(async () => expect(await instanceBacked(s.stack.env.DATA_DIR, created.body.id)).toBe(true));

    expect((await s.api.delete(`/v1/instances/${created.body.id}`)).status).toBe(204);
    // Generous: on the OpenStack testbed the delete first takes its proxy host off the shared Octavia load balancer, then waits for Nova.
    await waitFor(
      'the instance to leave the list',
      async () => {
        const list = await s.api.get('/v1/instances');
        return !(list.body as any[]).some((i) => i.id === created.body.id);
      },
      { timeoutMs: 180_000 },
    );
    // Its process group ended, its Nova server gone.
    await whenBacked(async () => expect(await instanceBacked(s.stack.env.DATA_DIR, created.body.id)).toBe(false));
    await whenReal(() => expect(fetch(`http://${active.metadata.privateIp}:3000/`)).rejects.toThrow());
    expect((await s.api.get(`/v1/instances/${created.body.id}`)).status).toBe(404);
    // Its address went back to the network.
    expect(await addressHeld(s.db, s.stack.env.DATA_DIR, created.body.id)).toBeNull();
  });

  describe('project scoping', () => {
    let id: string;

    beforeAll(async () => {
      id = (await s.api.post('/v1/instances', { name: 'private-one', ...DEMO_INSTANCE, image_id: fx.plainImage })).body.id;
    });

    it("answers 403 for another project's instance on get and delete", async () => {
      const intruder = s.stack.http.with({ 'x-api-key': s.other.apiKey });
      for (const res of [await intruder.get(`/v1/instances/${id}`), await intruder.delete(`/v1/instances/${id}`)]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(id) });
      }
      const row = await s.db.getRepository(Instance).findOneByOrFail({ id });
      expect(row.status).not.toBe('DELETING');
    });

    it("never lists another project's instances", async () => {
      const theirs = await s.stack.http.with({ 'x-api-key': s.other.apiKey }).get('/v1/instances');
      expect(theirs.status).toBe(200);
      expect((theirs.body as any[]).map((i) => i.project_id)).not.toContain(s.owner.projectId);
      const mine = await s.api.get('/v1/instances');
      expect((mine.body as any[]).some((i) => i.id === id)).toBe(true);
      expect((mine.body as any[]).every((i) => i.project_id === s.owner.projectId)).toBe(true);
    });

    it('answers 404 for an id that does not exist, in any form', async () => {
      for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%27%3B--']) {
        const res = await s.api.get(`/v1/instances/${bad}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });
  });

  describe('400 on every invalid create', () => {
    const valid = { name: 'v', ...DEMO_INSTANCE };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing name', { ...valid, name: undefined }, 'name: is required'],
      ['missing image_id', { ...valid, image_id: undefined }, 'image_id: is required'],
      ['missing flavor_id', { ...valid, flavor_id: undefined }, 'flavor_id: is required'],
      ['missing network_id', { ...valid, network_id: undefined }, 'network_id: is required'],
      ['missing keypair_name', { ...valid, keypair_name: undefined }, 'keypair_name: is required'],
      ['empty name', { ...valid, name: '' }, 'name: should not be empty'],
      ['name not a string', { ...valid, name: 42 }, 'name: must be a string'],
      ['name too long', { ...valid, name: 'x'.repeat(256) }, 'name: must be shorter'],
      ['image_id not a string', { ...valid, image_id: ['demo-web'] }, 'image_id: must be a string'],
      ['unknown image', { ...valid, image_id: 'windows-95' }, 'image_id: image "windows-95" does not exist'],
      ['unknown flavor', { ...valid, flavor_id: 'm9.huge' }, 'flavor_id: flavor "m9.huge" does not exist'],
      ['unknown network', { ...valid, network_id: 'public' }, 'network_id: network "public" does not exist'],
      ['unknown keypair', { ...valid, keypair_name: 'nobody' }, 'keypair_name: keypair "nobody" does not exist'],
      ['unknown security group name', { ...valid, security_group_names: ['default', 'nope'] }, 'security_group_names[1]: security group "nope" does not exist'],
      ['unknown security group id', { ...valid, security_group_ids: ['sg-nope'] }, 'security_group_ids[0]: security group "sg-nope" does not exist'],
      [
        'several unknown references: always the first of image, flavor, network, keypair, groups',
        { ...valid, security_group_names: ['nope'], keypair_name: 'nobody', flavor_id: 'm9.huge' },
        'flavor_id: flavor "m9.huge" does not exist',
      ],
      ['security_group_names not an array', { ...valid, security_group_names: 'default' }, 'security_group_names: must be an array'],
      ['security group name not a string', { ...valid, security_group_names: [1] }, 'security_group_names: each value in security_group_names must be a string'],
      ['port out of range', { ...valid, port: '70000' }, 'port: must be a port number'],
      ['port not numeric', { ...valid, port: 'http' }, 'port: must be a port number'],
      ['port as boolean', { ...valid, port: true }, 'port: must be a port number'],
      ['dname with dots', { ...valid, dname: 'a.b' }, 'dname: must be a DNS label'],
      ['dname upper case', { ...valid, dname: 'Web' }, 'dname: must be a DNS label'],
      ['user_data not a string', { ...valid, user_data: { run: 'x' } }, 'user_data: must be a string'],
      ['user_data too large', { ...valid, user_data: 'x'.repeat(65536) }, 'user_data: must be shorter'],
      ['imageName not a string', { ...valid, imageName: 1 }, 'imageName: must be a string'],
      ['volume not an object', { ...valid, volume: 'big' }, 'volume: must be an object'],
      ['volume without size', { ...valid, volume: { name: 'data' } }, 'volume.size: is required'],
      ['volume size not a number', { ...valid, volume: { name: 'data', size: '10' } }, 'volume.size: must be an integer number'],
      ['volume size zero', { ...valid, volume: { name: 'data', size: 0 } }, 'volume.size: must not be less than 1'],
      ['unknown field', { ...valid, status: 'ACTIVE' }, 'status: property status should not exist'],
      ['owner field', { ...valid, project_id: 'x' }, 'project_id: property project_id should not exist'],
    ];

    it.each(cases)('%s', async (_label, body, message) => {
      const before = await s.db.getRepository(Instance).count();
      const res = await s.api.post('/v1/instances', JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
      expect(res.body.error.message).toContain(message);
      expect(await s.db.getRepository(Instance).count()).toBe(before);
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"hello"'],
      ['null', 'null'],
      ['nothing', ''],
    ])('body that is %s', async (_label, raw) => {
      const res = await s.api.post('/v1/instances', raw, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'bad_request', message: 'request body must be a JSON object' });
    });
  });
});
