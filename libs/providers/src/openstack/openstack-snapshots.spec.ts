import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { MARK } from './openstack-resources';
import { OpenStackSnapshots, SNAPSHOT_UPLOAD_LIMIT_MS } from './openstack-snapshots';

describe('OpenStackSnapshots.imageRef', () => {
  const id = 'snap-0123';

  /** Snapshots over a Glance that lists one image of snapshot `id`, made `ageMs` ago, in `status`. */
  function glanceWith(status: string, ageMs: number): OpenStackSnapshots {
    const image = { id: 'glance-1', name: MARK.name(id), status, created_at: new Date(Date.now() - ageMs).toISOString(), [MARK.idKey]: id };
    const client = { get: async () => ({ images: [image] }) } as unknown as OpenStackClient;
    return new OpenStackSnapshots(client);
  }

  it("boots an active image's Glance id", async () => {
    expect(await glanceWith('active', SNAPSHOT_UPLOAD_LIMIT_MS * 2).imageRef(id)).toBe('glance-1');
  });

  it.each(['queued', 'saving'])('waits (null) while an image %s is within the upload limit', async (status) => {
    expect(await glanceWith(status, 60_000).imageRef(id)).toBeNull();
  });

  it.each(['queued', 'saving'])('ends the wait with a reason once an image %s outlived the upload limit', async (status) => {
    const refused = await glanceWith(status, SNAPSHOT_UPLOAD_LIMIT_MS + 60_000)
      .imageRef(id)
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DriverError);
    expect((refused as DriverError).code).toBe('invalid');
    expect((refused as DriverError).message).toContain(`is still ${status} in Glance 60 min after Nova made it`);
  });
});
