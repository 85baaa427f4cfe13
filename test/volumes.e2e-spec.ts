import { Volume } from '@stratus/core';
import { QUEUES, redisConnection, resourceJobId } from '@stratus/queue';
import { Queue } from 'bullmq';
import { catalogFixtures, DEMO_INSTANCE, itReal, realResources, signTestToken, Suite, useSuite, volumeBackingGb, waitFor, whenBacked, whenReal } from '@stratus/testing';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataOf, ResponseChecker, StratusClient, stratusClient } from './openapi.client';

// The provider's catalog: the same suite on every provider.
const fx = catalogFixtures();

/*
 * Every call to the api goes through the client typed from the OpenAPI
 * document, and every answer is checked against the document the api
 * serves (test/openapi.client.ts).
 */

/** The owner's `/api/cloud` and `/v1` clients, one for the other tenant, and one with no credential. */
function clientsOf(s: Suite) {
  const clients = {} as { cloud: StratusClient; api: StratusClient; intruder: StratusClient; otherApi: StratusClient; anonymous: StratusClient };
  beforeAll(async () => {
    const base = s.stack.http.baseUrl;
    const checker = await ResponseChecker.load(base);
    Object.assign(clients, {
      cloud: stratusClient(base, checker, { authorization: `Bearer ${s.owner.token}` }),
      api: stratusClient(base, checker, { 'x-api-key': s.owner.apiKey }),
      intruder: stratusClient(base, checker, { authorization: `Bearer ${s.other.token}` }),
      otherApi: stratusClient(base, checker, { 'x-api-key': s.other.apiKey }),
      anonymous: stratusClient(base, checker),
    });
  });
  return clients;
}

type NewInstance = { name: string; image_id: string; user_data?: string; volume?: { name: string; size: number } };

/** POST /v1/instances with the demo placement; the created body. */
async function createInstance(api: StratusClient, fields: NewInstance) {
  return dataOf(await api.POST('/v1/instances', { body: { ...DEMO_INSTANCE, ...fields } }));
}

async function waitActive(api: StratusClient, id: string) {
  return waitFor(`instance ${id} to be ACTIVE`, async () => dataOf(await api.GET('/v1/instances')).find((i) => i.id === id && i.status === 'ACTIVE'), {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

const volumesOf = async (cloud: StratusClient) => dataOf(await cloud.GET('/api/cloud/volumes/list'));

/** A plain instance whose user_data leaves a writer behind: once `volumes/<id>` appears, it writes a file there, as the instance's user. */
function writerUserData(volumeId: string, marker: string): string {
  return `#!/bin/sh
( while [ ! -d "volumes/${volumeId}" ]; do sleep 0.1; done
  echo "${marker}" > "volumes/${volumeId}/hello.txt" ) > /dev/null 2>&1 &
exit 0
`;
}

describe('volumes', () => {
  const s = useSuite();
  const c = clientsOf(s);
  let instancesDir: string;
  let volumesDir: string;

  const listed = async (id: string) => (await volumesOf(c.cloud)).find((v) => v.id === id);
  const waitStatus = (id: string, status: string, timeoutMs = 60_000) =>
    waitFor(
      `volume ${id} to be ${status}`,
      async () => {
        const v = await listed(id);
        return v?.status === status ? v : undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );

  beforeAll(async () => {
    instancesDir = join(s.stack.env.DATA_DIR, 'instances');
    volumesDir = join(s.stack.env.DATA_DIR, 'volumes');
  });

  it('creates a volume backed by a disk of the requested size (a file, a Cinder volume), lists it, deletes it', async () => {
    const created = await c.cloud.POST('/api/cloud/volumes/create', { body: { name: 'scratch', size: 2, description: 'temp' } });
    expect(created.response.status).toBe(201);
    const volume = dataOf(created);
    expect(volume).toEqual({
      id: expect.any(String),
      name: 'scratch',
      description: 'temp',
      size: 2,
      status: 'creating',
      status_reason: null,
      attachments: [],
      project_id: s.owner.projectId,
      user_id: s.owner.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await waitStatus(volume.id, 'available');
    await whenBacked(async () => expect(await volumeBackingGb(s.stack.env.DATA_DIR, volume.id)).toBe(2));

    // Deletes side by side answer as repeats do: the same outcome.
    const deletes = await Promise.all([1, 2, 3].map(() => c.cloud.DELETE('/api/cloud/volumes/delete/{id}', { params: { path: { id: volume.id } } })));
    // The fake provider's worker can finish the delete before the last of them reads the row:
    // that one answers as a delete of a gone volume does (404). Never a 409 "changed meanwhile".
    const answers = deletes.filter((d) => realResources() || d.response.status !== 404);
    expect(answers.length).toBeGreaterThan(0);
    for (const deleted of answers) expect([deleted.response.status, deleted.data]).toEqual([200, { message: 'Volume deleted successfully' }]);
    await waitFor('the volume to leave the list', async () => !(await listed(volume.id)));
    expect(existsSync(join(volumesDir, volume.id))).toBe(false);
    await whenBacked(async () => expect(await volumeBackingGb(s.stack.env.DATA_DIR, volume.id)).toBeNull());
  });

  const attach = (volume_id: string, instance_id: string) => c.cloud.POST('/api/cloud/volumes/attach', { body: { volume_id, instance_id } });
  const detach = (volume_id: string, attachment_id: string) => c.cloud.POST('/api/cloud/volumes/detach', { body: { volume_id, attachment_id } });
  const deleteVolume = (id: string) => c.cloud.DELETE('/api/cloud/volumes/delete/{id}', { params: { path: { id } } });
  const createVolume = async (name: string) => dataOf(await c.cloud.POST('/api/cloud/volumes/create', { body: { name, size: 1 } }));

  // The file itself is seen on the local provider only (no guest runs on the testbed's Nova); the
  // attachments, refusals and statuses around it on every provider.
  it('keeps a file written inside an instance across detach and re-attach to another instance', async () => {
    const volume = await createVolume('data');
    await waitStatus(volume.id, 'available');
    const [a, b] = await Promise.all([
      createInstance(c.api, { name: 'vol-a', image_id: fx.plainImage, user_data: writerUserData(volume.id, 'written by a') }),
      createInstance(c.api, { name: 'vol-b', image_id: fx.plainImage }),
    ]);
    await Promise.all([waitActive(c.api, a.id), waitActive(c.api, b.id)]);

    const attached = await attach(volume.id, a.id);
    expect(attached.response.status).toBe(200);
    const attachment = dataOf(attached);
    expect(attachment).toEqual({
      attachment_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      volume_id: volume.id,
      instance_id: a.id,
      status: 'attaching',
      mountpoint: `volumes/${volume.id}`,
    });
    const attachmentId = attachment.attachment_id!;
    const inUse = await waitStatus(volume.id, 'in-use');
    expect(inUse.attachments).toEqual([{ attachment_id: attachmentId, instance_id: a.id, mountpoint: `volumes/${volume.id}`, attached_at: expect.any(String) }]);

    // The instance's own process wrote the file, in its working directory.
    await whenReal(async () => {
      const inA = join(instancesDir, a.id, 'home', 'volumes', volume.id, 'hello.txt');
      await waitFor('the instance to write on the volume', () => existsSync(inA), { timeoutMs: 60_000 });
      expect(readFileSync(inA, 'utf8').trim()).toBe('written by a');
    });

    // Attaching an attached volume: 409, nothing changed.
    expect((await attach(volume.id, b.id)).response.status).toBe(409);
    // Deleting it while in use: 409.
    expect((await deleteVolume(volume.id)).response.status).toBe(409);
    // Detaching with another attachment id: 400.
    const wrong = await detach(volume.id, '00000000-0000-4000-8000-000000000000');
    expect(wrong.response.status).toBe(400);
    expect(wrong.error?.error.message).toContain('attachment_id');
    expect((await listed(volume.id))?.status).toBe('in-use');

    const detached = await detach(volume.id, attachmentId);
    expect(detached.response.status).toBe(200);
    expect(detached.data).toMatchObject({ volume_id: volume.id, attachment_id: attachmentId, status: 'detaching' });
    const available = await waitStatus(volume.id, 'available');
    expect(available.attachments).toEqual([]);
    await whenReal(() => expect(() => lstatSync(join(instancesDir, a.id, 'home', 'volumes', volume.id))).toThrow());
    expect((await detach(volume.id, attachmentId)).response.status).toBe(409);

    const again = await attach(volume.id, b.id);
    expect(again.response.status).toBe(200);
    expect(dataOf(again).attachment_id).not.toBe(attachmentId);
    const inUseAgain = await waitStatus(volume.id, 'in-use');
    expect(inUseAgain.attachments).toEqual([expect.objectContaining({ attachment_id: dataOf(again).attachment_id, instance_id: b.id })]);
    await whenReal(() => {
      const inB = join(instancesDir, b.id, 'home', 'volumes', volume.id, 'hello.txt');
      expect(readFileSync(inB, 'utf8').trim()).toBe('written by a');
    });
  });

  // Only meaningful when the worker is root and instances run as another user, in a real home (not the fake provider's).
  (process.getuid?.() === 0 && realResources() ? it : it.skip)('an instance that made its volumes folder a link elsewhere gets nothing written there by the attach', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'stratus-not-the-instances-'));
    chmodSync(elsewhere, 0o755);
    try {
      const volume = await createVolume('lured');
      const user_data = `#!/bin/sh\nrm -rf volumes && ln -s ${elsewhere} volumes\nexit 0\n`;
      const vm = await createInstance(c.api, { name: 'lure', image_id: fx.plainImage, user_data });
      await Promise.all([waitStatus(volume.id, 'available'), waitActive(c.api, vm.id)]);
      expect(lstatSync(join(instancesDir, vm.id, 'home', 'volumes')).isSymbolicLink()).toBe(true);

      expect((await attach(volume.id, vm.id)).response.status).toBe(200);
      const failed = await waitFor(
        'the attach to fail',
        async () => {
          const v = await listed(volume.id);
          return v?.status === 'available' && v.status_reason ? v : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(failed.status_reason).toContain("the instance's home refused it");
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(statSync(elsewhere).uid).toBe(0);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  /**
   * A volume attached to a plain instance whose user_data, once the volume
   * shows in its home, runs `then` in the background and leaves `done` in
   * its home when it has; the test waits for that mark.
   */
  async function attachedWhile(name: string, then: (volumeId: string) => string) {
    const volume = await createVolume(name);
    const user_data = `#!/bin/sh\n( while [ ! -d "volumes/${volume.id}" ]; do sleep 0.1; done; ${then(volume.id)} ) > /dev/null 2>&1 &\nexit 0\n`;
    const vm = await createInstance(c.api, { name, image_id: fx.plainImage, user_data });
    await Promise.all([waitStatus(volume.id, 'available'), waitActive(c.api, vm.id)]);
    const attachmentId = dataOf(await attach(volume.id, vm.id)).attachment_id!;
    await waitStatus(volume.id, 'in-use');
    const home = join(instancesDir, vm.id, 'home');
    await waitFor(`${name} to have done its part`, () => existsSync(join(home, 'done')), { timeoutMs: 60_000 });
    return { volume, vm, attachmentId, link: join(home, 'volumes', volume.id), detach: () => detach(volume.id, attachmentId) };
  }

  // Loop-mounted volumes only (root, with loop devices, the local provider): a plain folder has no mount to be busy.
  (process.getuid?.() === 0 && existsSync('/dev/loop-control') && realResources() ? it : it.skip)(
    'refuses to detach while a process of the instance has a file open on the volume: it stays in-use, link and all',
    async () => {
      const { volume, vm, attachmentId, link, detach } = await attachedWhile('holder', (id) => `exec 3>>"volumes/${id}/held"; touch done; exec sleep 100000`);
      expect((await detach()).response.status).toBe(200);
      const refused = await waitFor(
        'the detach to be refused',
        async () => {
          const v = await listed(volume.id);
          return v?.status === 'in-use' && v.status_reason ? v : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(refused.status_reason).toContain('is busy: a process of its instance has a file open on it');
      expect(refused.attachments).toEqual([expect.objectContaining({ attachment_id: attachmentId, instance_id: vm.id })]);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(existsSync(join(link, 'held'))).toBe(true);
      // Its instance deleted, the volume is released all the same.
      expect((await c.api.DELETE('/v1/instances/{id}', { params: { path: { id: vm.id } } })).response.status).toBe(204);
      await waitStatus(volume.id, 'available', 30_000);
    },
  );

  // Its instance's user_data changes its home: a real process's only.
  itReal('detaches from an instance that made its volumes folder read-only', async () => {
    const { volume, link, detach } = await attachedWhile('locker', () => 'chmod 555 volumes; touch done');
    expect((await detach()).response.status).toBe(200);
    const detached = await waitStatus(volume.id, 'available', 15_000);
    expect(detached.status_reason).toBeNull();
    expect(() => lstatSync(link)).toThrow();
  });

  it('POST /v1/instances with volume creates and attaches one', async () => {
    const created = await c.api.POST('/v1/instances', { body: { name: 'with-vol', ...DEMO_INSTANCE, image_id: fx.plainImage, volume: { name: 'boot-data', size: 1 } } });
    expect(created.response.status).toBe(202);
    const instance = dataOf(created);
    await waitActive(c.api, instance.id);
    const volume = await waitFor(
      'the volume to be attached',
      async () => (await volumesOf(c.cloud)).find((x) => x.attachments[0]?.instance_id === instance.id && x.status === 'in-use'),
      { timeoutMs: 60_000 },
    );
    expect(volume).toMatchObject({ name: 'boot-data', size: 1 });
    await whenReal(() => expect(lstatSync(join(instancesDir, instance.id, 'home', 'volumes', volume.id)).isSymbolicLink()).toBe(true));

    // Deleting the instance releases the attachment. (On the testbed the delete first takes the instance's proxy host off
    // Octavia's load balancer, which every proxy host shares and which takes one change at a time: a generous bound.)
    expect((await c.api.DELETE('/v1/instances/{id}', { params: { path: { id: instance.id } } })).response.status).toBe(204);
    const released = await waitStatus(volume.id, 'available', 180_000);
    expect(released.attachments).toEqual([]);
  });

  describe('refusals', () => {
    let mine: { id: string };
    let theirs: { id: string };
    let theirInstance: string;
    let myInstance: string;

    beforeAll(async () => {
      mine = await createVolume('mine');
      theirs = dataOf(await c.intruder.POST('/api/cloud/volumes/create', { body: { name: 'theirs', size: 1 } }));
      theirInstance = (await createInstance(c.otherApi, { name: 'their-vm', image_id: fx.plainImage })).id;
      myInstance = (await createInstance(c.api, { name: 'my-vm', image_id: fx.plainImage })).id;
      await waitStatus(mine.id, 'available');
    });

    // Bodies the client's types would refuse: these tests send them on purpose.
    const anyBody = (body: unknown) => ({ body: body as never });

    it.each([
      ['create', () => c.anonymous.POST('/api/cloud/volumes/create', anyBody({}))],
      ['list', () => c.anonymous.GET('/api/cloud/volumes/list')],
      ['delete', () => c.anonymous.DELETE('/api/cloud/volumes/delete/{id}', { params: { path: { id: 'x' } } })],
      ['attach', () => c.anonymous.POST('/api/cloud/volumes/attach', anyBody({}))],
      ['detach', () => c.anonymous.POST('/api/cloud/volumes/detach', anyBody({}))],
    ] as const)('401 without a token: %s', async (_l, call) => {
      const res = await call();
      expect(res.response.status).toBe(401);
      expect(res.error?.error.code).toBe('unauthorized');
    });

    it('401 with an expired token', async () => {
      const res = await c.anonymous.GET('/api/cloud/volumes/list', {
        headers: { authorization: `Bearer ${signTestToken({ project_id: s.owner.projectId, sub: 'u' }, { expiresIn: -10 })}` },
      });
      expect(res.response.status).toBe(401);
    });

    it("lists only the caller's project", async () => {
      const list = await volumesOf(c.cloud);
      expect(list.map((v) => v.id)).toContain(mine.id);
      expect(list.map((v) => v.id)).not.toContain(theirs.id);
      expect(list.every((v) => v.project_id === s.owner.projectId)).toBe(true);
    });

    it("404 for another project's volume (as for a missing one), 403 for its instance; nothing changed", async () => {
      const missing = { status: 404, body: { error: { code: 'not_found', message: `volume ${theirs.id} not found` } } };
      const answer = (res: { response: Response; error?: unknown }) => ({ status: res.response.status, body: res.error });
      expect(answer(await deleteVolume(theirs.id))).toEqual(missing);
      expect(answer(await attach(theirs.id, myInstance))).toEqual(missing);
      const foreignInstance = await attach(mine.id, theirInstance);
      expect(foreignInstance.response.status).toBe(403);
      expect(foreignInstance.error?.error.code).toBe('forbidden');
      expect(answer(await detach(theirs.id, '00000000-0000-4000-8000-000000000000'))).toEqual(missing);
      const rows = await s.db.getRepository(Volume).findBy([{ id: mine.id }, { id: theirs.id }]);
      expect(rows.map((r) => r.instanceId)).toEqual([null, null]);
      expect(rows.find((r) => r.id === theirs.id)!.status).not.toBe('deleting');
    });

    it('404 for a volume or instance that does not exist', async () => {
      expect((await deleteVolume('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
      expect((await deleteVolume('not-an-id')).response.status).toBe(404);
      expect((await attach(mine.id, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
      expect((await attach('00000000-0000-4000-8000-000000000000', myInstance)).response.status).toBe(404);
    });

    it('409 for detaching a volume that is not attached', async () => {
      const res = await detach(mine.id, '00000000-0000-4000-8000-000000000000');
      expect(res.response.status).toBe(409);
      expect(res.error?.error.code).toBe('conflict');
    });

    const createCases: Array<[string, Record<string, unknown>, string]> = [
      ['missing name', { size: 1 }, 'name: is required'],
      ['missing size', { name: 'x' }, 'size: is required'],
      ['size as string', { name: 'x', size: '1' }, 'size: must be an integer'],
      ['size fractional', { name: 'x', size: 1.5 }, 'size: must be an integer'],
      ['size zero', { name: 'x', size: 0 }, 'size: must not be less than 1'],
      ['size over the limit', { name: 'x', size: 5000 }, 'size: must not be greater than 1024'],
      ['name not a string', { name: 7, size: 1 }, 'name: must be a string'],
      ['description not a string', { name: 'x', size: 1, description: [] }, 'description: must be a string'],
      ['owner field', { name: 'x', size: 1, project_id: 'p' }, 'project_id: property project_id should not exist'],
    ];
    it.each(createCases)('400 on create: %s', async (_l, body, message) => {
      const before = await s.db.getRepository(Volume).count();
      const res = await c.cloud.POST('/api/cloud/volumes/create', anyBody(body));
      expect(res.response.status).toBe(400);
      expect(res.error?.error.message).toContain(message);
      expect(await s.db.getRepository(Volume).count()).toBe(before);
    });

    it.each([
      ['attach without instance_id', '/api/cloud/volumes/attach', { volume_id: 'x' }, 'instance_id: is required'],
      ['attach without volume_id', '/api/cloud/volumes/attach', { instance_id: 'x' }, 'volume_id: is required'],
      ['detach without attachment_id', '/api/cloud/volumes/detach', { volume_id: 'x' }, 'attachment_id: is required'],
      ['detach with a number', '/api/cloud/volumes/detach', { volume_id: 'x', attachment_id: 5 }, 'attachment_id: must be a string'],
    ] as const)('400 on %s', async (_l, path, body, message) => {
      const res = await c.cloud.POST(path, anyBody(body));
      expect(res.response.status).toBe(400);
      expect(res.error?.error.message).toContain(message);
    });

    it('400 on POST /v1/instances with a volume over the size limit', async () => {
      const res = await c.api.POST('/v1/instances', { body: { name: 'big', ...DEMO_INSTANCE, volume: { name: 'big', size: 5000 } } });
      expect(res.response.status).toBe(400);
      expect(res.error?.error.message).toContain('volume.size: must not be greater than 1024');
    });
  });
});

describe('a volume created with an instance that waits for a worker', () => {
  // One instance job at a time: the second instance's build waits while the first boots. The
  // blocker's user_data makes its boot take eight seconds on the local provider; the fake one
  // runs no user_data, and takes as long for every boot (the local worker ignores the setting). On
  // the testbed the wait is Nova's boot, seconds: shorter, but a wait all the same.
  const s = useSuite({ WORKER_CONCURRENCY: '1', FAKE_PROVIDER_BOOT_MS: '8000' });
  const c = clientsOf(s);

  it("is attached once the instance is built, without spending the attach job's attempts on the wait", async () => {
    const blocker = await c.api.POST('/v1/instances', { body: { name: 'slow-boot', ...DEMO_INSTANCE, image_id: fx.plainImage, user_data: '#!/bin/sh\nsleep 8\n' } });
    const waiting = await c.api.POST('/v1/instances', { body: { name: 'queued', ...DEMO_INSTANCE, image_id: fx.plainImage, volume: { name: 'queued-data', size: 1 } } });
    expect([blocker.response.status, waiting.response.status]).toEqual([202, 202]);
    const instance = dataOf(waiting);
    const volumeOf = async () => (await volumesOf(c.cloud)).find((v) => v.description === `created with instance ${instance.id}`);
    await waitActive(c.api, instance.id);
    const volume = await waitFor(
      'the volume to be in use',
      async () => {
        const v = await volumeOf();
        return v?.status === 'in-use' ? v : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(volume.attachments).toEqual([expect.objectContaining({ instance_id: instance.id })]);
    const [{ generation }] = await s.db.query(`SELECT generation FROM volumes WHERE id = $1`, [volume.id]);
    const queue = new Queue(QUEUES.volumes, { connection: redisConnection(s.stack.env.REDIS_URL), prefix: s.stack.env.QUEUE_PREFIX });
    try {
      const job = await queue.getJob(resourceJobId('volume.attach', volume.id, generation));
      // It waited about eight seconds: spending attempts on that (1, 2, 4 s apart) would have made four.
      expect(job!.attemptsMade).toBeLessThanOrEqual(1);
    } finally {
      await queue.close();
    }
  });
});
