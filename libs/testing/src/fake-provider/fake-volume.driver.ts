import { AttachedVolume, DriverError, VolumeDriver, volumeMountpoint } from '@stratus/providers';
import { FakeComputeDriver } from './fake-compute.driver';
import { FakeControl } from './fake-control';

interface FakeVolume {
  sizeGb: number;
  /** false while a create was cut short: it does not exist yet, and a repeat makes it anew. */
  ready: boolean;
  attachedTo: string | null;
}

/** FAKE block storage, in memory: volumes are map entries, attached to fake instances. */
export class FakeVolumeDriver implements VolumeDriver {
  readonly backing = 'fake provider (in memory)';
  private readonly volumes = new Map<string, FakeVolume>();

  constructor(
    private readonly control: FakeControl,
    private readonly compute: FakeComputeDriver,
  ) {
    for (const [id, volume] of Object.entries(control.restore<Record<string, FakeVolume>>('volumes') ?? {})) this.volumes.set(id, volume);
  }

  /** Volumes survive the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('volumes', Object.fromEntries(this.volumes));
  }

  async exists(id: string): Promise<boolean> {
    await this.control.delay();
    return this.volumes.get(id)?.ready ?? false;
  }

  async create(id: string, sizeGb: number): Promise<void> {
    await this.control.delay();
    this.control.strike('volume.create', 'before');
    if (this.volumes.get(id)?.ready) return;
    this.volumes.set(id, { sizeGb, ready: false, attachedTo: null });
    this.save();
    // Halfway: space reserved, not ready; a repeat makes it again.
    this.control.strike('volume.create', 'halfway');
    this.volumes.get(id)!.ready = true;
    this.save();
  }

  async attach(id: string, instanceId: string): Promise<AttachedVolume> {
    await this.control.delay();
    this.control.strike('volume.attach', 'before');
    const volume = this.volumes.get(id);
    if (!volume?.ready) throw new DriverError('not_found', `volume ${id} does not exist on this provider`);
    if (!this.compute.has(instanceId)) throw new DriverError('retryable', `instance ${instanceId} is not laid out yet`);
    volume.attachedTo = instanceId;
    this.save();
    return { mountpoint: volumeMountpoint(id) };
  }

  async detach(id: string, _instanceId: string | null): Promise<void> {
    await this.control.delay();
    this.control.strike('volume.detach', 'before');
    const volume = this.volumes.get(id);
    if (volume) volume.attachedTo = null;
    this.save();
  }

  async delete(id: string): Promise<void> {
    await this.control.delay();
    this.control.strike('volume.delete', 'before');
    const volume = this.volumes.get(id);
    if (!volume) return;
    // Halfway: detached, not yet removed; a repeat removes it.
    volume.attachedTo = null;
    this.save();
    this.control.strike('volume.delete', 'halfway');
    this.volumes.delete(id);
    this.save();
  }
}
