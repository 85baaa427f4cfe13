import { DriverError } from '../driver-error';
import { AttachedVolume, VolumeDriver } from '../volume.driver';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK, serverOf, until } from './openstack-resources';

interface CinderVolume {
  id: string;
  name: string;
  status: string;
  created_at: string;
  metadata?: Record<string, string>;
  attachments: Array<{ server_id: string; device?: string }>;
}

/** Statuses in which the volume is there to use (not still being made, not failed, not going). */
const USABLE = new Set(['available', 'in-use', 'reserved', 'attaching', 'detaching']);

export interface OpenStackVolumeOptions {
  /** How long one call waits for Cinder to finish a create, an attach, a detach or a delete before it is retried later. */
  waitMs?: number;
}

/**
 * Cinder volumes, one per volume id (named after it, the id in its
 * metadata), attached through Nova's os-volume_attachments and keyed by
 * the pair (server, volume). Every call waits, within a bound, for the
 * state it asked for; past the bound it is retryable and the job's next
 * run picks up where this one stopped.
 */
export class OpenStackVolumeDriver implements VolumeDriver {
  readonly backing = 'Cinder volume, attached through Nova';
  private readonly waitMs: number;

  constructor(
    private readonly client: OpenStackClient,
    opts: OpenStackVolumeOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? 60_000;
  }

  async create(id: string, sizeGb: number): Promise<void> {
    let volume = await this.volumeOf(id);
    if (volume?.status === 'error') {
      // A create Cinder failed: made again, not reported as there.
      await this.client.delete('block-storage', `/volumes/${volume.id}`);
      await this.gone(id);
      volume = null;
    }
    if (!volume) {
      await this.client.post('block-storage', '/volumes', { volume: { size: sizeGb, name: MARK.name(id), metadata: { [MARK.idKey]: id } } });
    }
    await until(
      `volume ${id} to be available`,
      async () => {
        const v = await this.volumeOf(id);
        if (v?.status === 'error') throw new DriverError('invalid', `volume ${id}: Cinder failed to create it`);
        return !!v && USABLE.has(v.status);
      },
      this.waitMs,
    );
  }

  async attach(id: string, instanceId: string): Promise<AttachedVolume> {
    const volume = await this.volumeOf(id);
    if (!volume) throw new DriverError('not_found', `volume ${id} does not exist`);
    const server = await serverOf(this.client, instanceId);
    if (!server || server.status !== 'ACTIVE') throw new DriverError('retryable', `instance ${instanceId} is not ready to receive volume ${id}`);
    const attached = volume.attachments.find((a) => a.server_id === server.id);
    if (!attached || volume.status !== 'in-use') {
      if (!attached && volume.status === 'available') {
        try {
          await this.client.post('compute', `/servers/${server.id}/os-volume_attachments`, { volumeAttachment: { volumeId: volume.id } });
        } catch (err) {
          // 409: the volume or the server is busy (another attach under way): the next look decides.
          if (!(err instanceof OpenStackError && err.status === 409)) throw err;
        }
      } else if (!attached && volume.attachments.length > 0) {
        throw new DriverError('invalid', `volume ${id} is attached to another server`);
      }
      await until(
        `volume ${id} to be attached`,
        async () => {
          const v = await this.volumeOf(id);
          return v?.status === 'in-use' && v.attachments.some((a) => a.server_id === server.id);
        },
        this.waitMs,
      );
    }
    // The device Nova reports for it: where the server sees the volume.
    const { volumeAttachment } = await this.client.get<{ volumeAttachment: { device?: string } }>('compute', `/servers/${server.id}/os-volume_attachments/${volume.id}`);
    return { mountpoint: volumeAttachment.device ?? `/dev/disk/by-id/virtio-${volume.id.slice(0, 20)}` };
  }

  async detach(id: string, instanceId: string | null): Promise<void> {
    const volume = await this.volumeOf(id);
    if (!volume) return;
    const server = instanceId ? await serverOf(this.client, instanceId) : null;
    const servers = volume.attachments.map((a) => a.server_id).filter((s) => !server || s === server.id);
    for (const serverId of servers) await this.client.delete('compute', `/servers/${serverId}/os-volume_attachments/${volume.id}`);
    if (servers.length === 0) return;
    await until(
      `volume ${id} to be detached`,
      async () => {
        const v = await this.volumeOf(id);
        return !v || !v.attachments.some((a) => servers.includes(a.server_id));
      },
      this.waitMs,
    );
  }

  async delete(id: string): Promise<void> {
    const volume = await this.volumeOf(id);
    if (!volume) return;
    if (volume.attachments.length > 0) await this.detach(id, null);
    await this.client.delete('block-storage', `/volumes/${volume.id}`);
    await this.gone(id);
  }

  async exists(id: string): Promise<boolean> {
    const volume = await this.volumeOf(id);
    return !!volume && USABLE.has(volume.status);
  }

  private async gone(id: string): Promise<void> {
    await until(`volume ${id} to be deleted`, async () => (await this.volumeOf(id)) === null, this.waitMs);
  }

  /** The volume of this id (by name, then by the id in its metadata); copies a racing repeat made are deleted. */
  private async volumeOf(id: string): Promise<CinderVolume | null> {
    const { volumes } = await this.client.get<{ volumes: CinderVolume[] }>('block-storage', '/volumes/detail', { query: { name: MARK.name(id) } });
    const mine = volumes.filter((v) => v.metadata?.[MARK.idKey] === id && v.status !== 'deleting');
    if (mine.length === 0) return null;
    const kept = keeper(mine, (v) => v.created_at);
    for (const extra of mine) if (extra.id !== kept.id && extra.attachments.length === 0) await this.client.delete('block-storage', `/volumes/${extra.id}`);
    return kept;
  }
}
