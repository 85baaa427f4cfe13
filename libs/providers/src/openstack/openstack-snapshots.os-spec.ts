import { InstanceSpec, MARK, serversOf, SnapshotSpec } from '@stratus/providers';
import { createUntilReady, rejection, testbedClient, uploadTestbedSnapshot } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { OpenStackCatalogDriver } from './openstack-catalog.driver';
import { OpenStackComputeDriver } from './openstack-compute.driver';
import { GlanceImage } from './openstack-snapshots';

/**
 * Snapshots against the testbed's Nova and Glance. Nova's fake virt driver
 * takes the createImage action but uploads no disk, so the image it makes
 * stays `queued`: `uploadTestbedSnapshot` does what a real hypervisor's
 * upload does (disk and container format, then the data), which takes the
 * image through `saving` to `active`.
 */
const client = testbedClient();
const compute = new OpenStackComputeDriver(client, { bootTimeoutMs: 120_000, network: 'stratus-net' });
const BOOT_WAIT_MS = 120_000;
let debianId: string;

const instanceIds: string[] = [];
const snapshotIds: string[] = [];

beforeAll(async () => {
  const { images } = await client.get<{ images: Array<{ id: string }> }>('image', '/images', { query: { name: 'debian-12' } });
  debianId = images[0].id;
});

afterAll(async () => {
  // What a failed case left, of this file's ids only (other runs may share the testbed).
  for (const id of snapshotIds) await compute.deleteSnapshot(id);
  for (const id of instanceIds) for (const s of await serversOf(client, id)) await client.delete('compute', `/servers/${s.id}`);
});

const instanceSpec = (imageId = debianId): InstanceSpec => {
  const id = randomUUID();
  instanceIds.push(id);
  return { id, imageId, address: '', port: 8080, userData: '#!/bin/sh\necho booted\n', flavor: { vcpus: 1, ramMb: 512 } };
};

const snapshotSpec = (instanceId: string, fields: Partial<SnapshotSpec> = {}): SnapshotSpec => {
  const id = `snap-${randomUUID()}`;
  snapshotIds.push(id);
  return { id, instanceId, projectId: randomUUID(), name: 'web, as it was', ...fields };
};

/** Every Glance image that carries the snapshot id, whatever its status, counted in Glance itself. */
async function glanceImages(id: string): Promise<GlanceImage[]> {
  const { images } = await client.get<{ images: GlanceImage[] }>('image', '/images', { query: { [MARK.idKey]: id } });
  return images;
}

/** How many createImage actions Nova took on the instance's server: one per image it was asked for. */
async function createImageCalls(instanceId: string): Promise<number> {
  const [server] = await serversOf(client, instanceId);
  const { instanceActions } = await client.get<{ instanceActions: Array<{ action: string }> }>('compute', `/servers/${server.id}/os-instance-actions`);
  return instanceActions.filter((a) => a.action === 'createImage').length;
}

describe('openstack snapshots', () => {
  it('a snapshot is one Glance image; repeated, the same; booted from once active; deleted, gone', async () => {
    const source = instanceSpec();
    await createUntilReady(compute, source, BOOT_WAIT_MS);
    const spec = snapshotSpec(source.id);
    expect(await compute.observeSnapshot(spec.id)).toBeNull();

    const image = await compute.snapshot(spec);
    expect(image).toMatchObject({ id: spec.id, name: spec.name, projectId: spec.projectId, sourceInstanceId: source.id, description: expect.any(String) });
    expect(await compute.snapshot(spec)).toEqual(image);
    expect(await compute.observeSnapshot(spec.id)).toEqual(image);
    const [made, ...more] = await glanceImages(spec.id);
    expect(more).toHaveLength(0);
    expect(await createImageCalls(source.id)).toBe(1);
    expect(made).toMatchObject({ name: MARK.name(spec.id), visibility: 'private' });
    expect(await compute.observe(source.id)).toMatchObject({ running: true, ready: true });

    // Until the upload is done, a boot from it waits (nothing runs yet: the job looks again, no attempt spent), and nothing is made meanwhile.
    const early = instanceSpec(spec.id);
    expect(await compute.create(early)).toMatchObject({ running: false, ready: false });
    expect(await serversOf(client, early.id)).toHaveLength(0);

    await uploadTestbedSnapshot(spec.id, client);
    // Not a catalog image: it is one project's.
    expect((await new OpenStackCatalogDriver(client).catalog()).images.map((i) => i.id)).not.toContain(made.id);
    expect(await compute.observeSnapshot(spec.id)).toEqual(image);
    const copy = instanceSpec(spec.id);
    await createUntilReady(compute, copy, BOOT_WAIT_MS);
    const [server] = await serversOf(client, copy.id);
    const { server: shown } = await client.get<{ server: { image: { id: string } } }>('compute', `/servers/${server.id}`);
    expect(shown.image.id).toBe(made.id);

    await compute.deleteSnapshot(spec.id);
    await compute.deleteSnapshot(spec.id);
    expect(await glanceImages(spec.id)).toHaveLength(0);
    expect(await compute.observeSnapshot(spec.id)).toBeNull();
    // Servers booted from it stay.
    expect(await compute.observe(copy.id)).toMatchObject({ running: true, ready: true });
    expect((await rejection(compute.create(instanceSpec(spec.id)))).code).toBe('invalid');
    await Promise.all([compute.delete(source.id), compute.delete(copy.id)]);
  });

  it('a snapshot whose createImage reached Nova before its job died is found, not made again', async () => {
    const source = instanceSpec();
    await createUntilReady(compute, source, BOOT_WAIT_MS);
    const spec = snapshotSpec(source.id);
    const [server] = await serversOf(client, source.id);
    await client.post('compute', `/servers/${server.id}/action`, {
      createImage: { name: MARK.name(spec.id), metadata: { [MARK.idKey]: spec.id, stratus_project: spec.projectId, stratus_source: source.id, stratus_name: spec.name } },
    });
    const [first] = await glanceImages(spec.id);
    const image = await compute.snapshot(spec);
    expect(image).toMatchObject({ id: spec.id, name: spec.name, projectId: spec.projectId, sourceInstanceId: source.id });
    expect((await glanceImages(spec.id)).map((i) => i.id)).toEqual([first.id]);
    expect(await createImageCalls(source.id)).toBe(1);
    await compute.deleteSnapshot(spec.id);
    await compute.delete(source.id);
  });

  it('refuses a missing instance, a malformed id, an id another snapshot has, and a Glance image id', async () => {
    const missing = await rejection(compute.snapshot(snapshotSpec(randomUUID())));
    expect(missing.code).toBe('not_found');
    const source = instanceSpec();
    await createUntilReady(compute, source, BOOT_WAIT_MS);
    for (const id of ['../etc', 'Snap', 'a', 'snap.1', `snap-${'x'.repeat(64)}`, debianId]) {
      const bad = await rejection(compute.snapshot({ id, instanceId: source.id, projectId: randomUUID(), name: 'x' }));
      expect(bad.code).toBe('invalid');
    }
    const taken = snapshotSpec(source.id);
    await compute.snapshot(taken);
    expect((await rejection(compute.snapshot({ ...taken, projectId: randomUUID() }))).code).toBe('invalid');
    expect((await rejection(compute.snapshot({ ...taken, instanceId: randomUUID() }))).code).toBe('invalid');
    expect(await glanceImages(taken.id)).toHaveLength(1);
    // None of the refused ones made an image.
    expect(await glanceImages(debianId)).toHaveLength(0);
    await compute.deleteSnapshot(taken.id);
    await compute.delete(source.id);
  });
});
