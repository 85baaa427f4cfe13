import { SnapshotImage, SnapshotSpec } from '../compute.driver';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { foundOrNull, keeper, MARK, serverOf } from './openstack-resources';

/** A Glance image as the list and show calls give it: its own properties sit beside the standard fields. */
export interface GlanceImage {
  id: string;
  name: string | null;
  status: string;
  created_at: string;
  [property: string]: unknown;
}

/** Snapshot ids are the seam's: lowercase letters, digits and hyphens, 3 to 63 of them. */
const SNAPSHOT_ID = /^[a-z0-9][a-z0-9-]{2,62}$/;
/** The shape of a Glance image id: such a snapshot id could name a catalog image. */
const GLANCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Glance properties that say whose snapshot an image is (the id itself is under MARK.idKey). */
const PROP = { project: 'stratus_project', source: 'stratus_source', name: 'stratus_name' } as const;
/** Statuses of an image that will never hold data: looked past, and removed by the next snapshot or delete. */
const DEAD = new Set(['killed', 'deleted', 'pending_delete']);
/**
 * How long an upload may take before a boot from it stops waiting: Nova
 * uploads a disk in minutes; an image still `queued` or `saving` an hour
 * after Nova made it belongs to an upload that died with its compute host,
 * and would keep a member in BUILD (and its cluster in progress) forever.
 */
export const SNAPSHOT_UPLOAD_LIMIT_MS = 60 * 60_000;

/**
 * Snapshot images as Nova makes them (the server's createImage action),
 * held in Glance as images private to the cloud project, found again by a
 * property carrying the snapshot id. The image exists from the moment
 * Nova answers (status `queued`, then `saving` while the hypervisor
 * uploads the disk, then `active`); only `create` waits for `active`, by
 * failing retryably until then, so no job blocks for the upload.
 */
export class OpenStackSnapshots {
  constructor(private readonly client: OpenStackClient) {}

  async snapshot(spec: SnapshotSpec): Promise<SnapshotImage> {
    if (!SNAPSHOT_ID.test(spec.id)) throw new DriverError('invalid', `snapshot id ${JSON.stringify(spec.id)} is not 3 to 63 lowercase letters, digits and hyphens`);
    const existing = await this.find(spec.id);
    if (existing) {
      if (existing[PROP.source] === spec.instanceId && existing[PROP.project] === spec.projectId) return snapshotImage(existing);
      throw new DriverError('invalid', `snapshot id ${spec.id} is taken by another image`);
    }
    if (GLANCE_ID.test(spec.id) && (await this.glanceImage(spec.id))) throw new DriverError('invalid', `snapshot id ${spec.id} names a Glance image`);
    const server = await serverOf(this.client, spec.instanceId);
    if (!server) throw new DriverError('not_found', `instance ${spec.instanceId} does not exist on this provider`);
    // An earlier try whose upload failed left a killed image: it goes, and this try makes a new one.
    await this.removeDead(spec.id);
    await this.client.post('compute', `/servers/${server.id}/action`, {
      createImage: {
        name: MARK.name(spec.id),
        // Nova makes these the image's Glance properties (values of at most 255 characters).
        metadata: { [MARK.idKey]: spec.id, [PROP.project]: spec.projectId, [PROP.source]: spec.instanceId, [PROP.name]: spec.name.slice(0, 255) },
      },
    });
    // Looked up again rather than taken from Nova's answer: two runs racing made two images, and both keep the same one.
    const made = await this.find(spec.id);
    if (!made) throw new DriverError('retryable', `Glance does not list the snapshot image ${spec.id} Nova made`);
    return snapshotImage(made);
  }

  /** The image whatever its progress (queued, saving, active): it exists, and `create` says when it can boot. */
  async observe(id: string): Promise<SnapshotImage | null> {
    if (!SNAPSHOT_ID.test(id)) return null;
    const found = await this.find(id);
    return found ? snapshotImage(found) : null;
  }

  async delete(id: string): Promise<void> {
    if (!SNAPSHOT_ID.test(id)) return;
    for (const image of await this.imagesOf(id)) await this.deleteImage(image.id);
  }

  /**
   * The Glance image a server boots from: the snapshot image of that id
   * once it is active (null while Nova uploads it, invalid when the upload
   * failed or outlived SNAPSHOT_UPLOAD_LIMIT_MS), else the id as it is (a
   * catalog image's Glance id).
   */
  async imageRef(imageId: string): Promise<string | null> {
    if (!SNAPSHOT_ID.test(imageId)) return imageId;
    const images = await this.imagesOf(imageId);
    if (images.length === 0) return imageId;
    const live = images.filter((i) => !DEAD.has(i.status));
    if (live.length === 0) throw new DriverError('invalid', `snapshot image ${imageId} failed in Glance (${images[0].status})`);
    const image = keeper(live, (i) => i.created_at);
    if (image.status === 'active') return image.id;
    if (Date.parse(image.created_at) + SNAPSHOT_UPLOAD_LIMIT_MS < Date.now()) {
      throw new DriverError(
        'invalid',
        `snapshot image ${imageId} is still ${image.status} in Glance ${SNAPSHOT_UPLOAD_LIMIT_MS / 60_000} min after Nova made it: its upload did not finish`,
      );
    }
    return null;
  }

  /** The snapshot's image, extra copies a racing repeat made deleted; null when there is none that lives. */
  private async find(id: string): Promise<GlanceImage | null> {
    const live = (await this.imagesOf(id)).filter((i) => !DEAD.has(i.status));
    if (live.length === 0) return null;
    const kept = keeper(live, (i) => i.created_at);
    for (const extra of live) if (extra.id !== kept.id) await this.deleteImage(extra.id);
    return kept;
  }

  private async imagesOf(id: string): Promise<GlanceImage[]> {
    // Glance filters on any property of the image: only the name and the property together count.
    const { images } = await this.client.get<{ images: GlanceImage[] }>('image', '/images', { query: { [MARK.idKey]: id, name: MARK.name(id) } });
    return images.filter((i) => i[MARK.idKey] === id);
  }

  private async removeDead(id: string): Promise<void> {
    for (const image of await this.imagesOf(id)) if (DEAD.has(image.status)) await this.deleteImage(image.id);
  }

  private glanceImage(imageId: string): Promise<GlanceImage | null> {
    return foundOrNull(() => this.client.get<GlanceImage>('image', `/images/${imageId}`));
  }

  /** One already gone is fine (the client's delete takes a 404 as done). */
  private async deleteImage(imageId: string): Promise<void> {
    await this.client.delete('image', `/images/${imageId}`);
  }
}

/** Whether a Glance image is a snapshot image (one project's, never the catalog's). */
export function isSnapshotImage(image: Record<string, unknown>): boolean {
  return typeof image[MARK.idKey] === 'string';
}

function snapshotImage(image: GlanceImage): SnapshotImage {
  const source = String(image[PROP.source]);
  return {
    id: String(image[MARK.idKey]),
    name: typeof image[PROP.name] === 'string' ? (image[PROP.name] as string) : (image.name ?? ''),
    description: `snapshot of instance ${source} (Glance image ${image.id})`,
    projectId: String(image[PROP.project]),
    sourceInstanceId: source,
  };
}
