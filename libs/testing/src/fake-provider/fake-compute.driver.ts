import { ComputeDriver, CpuUsage, DriverError, InstanceSpec, ObservedInstance, SnapshotImage, SnapshotSpec } from '@stratus/providers';
import { FakeBoot, FakeControl } from './fake-control';

interface FakeInstance {
  spec: InstanceSpec;
  /** laid-out: its disk exists, nothing runs yet (a create cut short); booting/running; failed: its boot exited. */
  phase: 'laid-out' | 'booting' | 'running' | 'failed';
  boot: FakeBoot | null;
  bootOutput: string | null;
  /** The image it runs as (`demo-web` or `plain`), through any snapshots it was booted from. */
  baseImageId: string;
  /** Its home's files, by path: what its first boot wrote and what its image held. */
  files: Record<string, string>;
}

interface FakeSnapshot {
  image: SnapshotImage;
  baseImageId: string;
  files: Record<string, string>;
}

const BASE_IMAGES = ['demo-web', 'plain'];

/**
 * FAKE compute, in memory: an instance "boots" for `control.bootMs` and is
 * then ready. Nothing runs; it exists to test the control plane (the
 * contract suite, the worker's non-blocking create) without real processes.
 */
export class FakeComputeDriver implements ComputeDriver {
  private readonly instances = new Map<string, FakeInstance>();
  private readonly snapshots = new Map<string, FakeSnapshot>();

  constructor(private readonly control: FakeControl) {
    for (const [id, instance] of Object.entries(control.restore<Record<string, FakeInstance>>('compute') ?? {})) this.instances.set(id, instance);
    for (const [id, snapshot] of Object.entries(control.restore<Record<string, FakeSnapshot>>('compute-snapshots') ?? {})) this.snapshots.set(id, snapshot);
  }

  /** What runs survives the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('compute', Object.fromEntries(this.instances));
    this.control.persist('compute-snapshots', Object.fromEntries(this.snapshots));
  }

  /** The file `path` of the instance's home; null when it has none (or there is no such instance). */
  readFile(id: string, path: string): string | null {
    return this.instances.get(id)?.files[path] ?? null;
  }

  /** What the instance runs: its base image's app, whatever snapshots it came through. */
  startCommand(id: string): string | null {
    const instance = this.instances.get(id);
    return instance ? `fake ${instance.baseImageId} app` : null;
  }

  /** Whether an instance exists at all (the fake volume driver attaches only to one). */
  has(id: string): boolean {
    return this.instances.has(id);
  }

  /** The spec the instance was created with; null when there is no such instance. */
  specOf(id: string): InstanceSpec | null {
    return this.instances.get(id)?.spec ?? null;
  }

  /** Placement groups removed (removePlacementGroup), in order: the fake keeps nothing else of them. */
  readonly removedPlacementGroups: string[] = [];

  async removePlacementGroup(group: string): Promise<void> {
    await this.control.delay();
    this.removedPlacementGroups.push(group);
  }

  async observe(id: string): Promise<ObservedInstance | null> {
    await this.control.delay();
    const instance = this.instances.get(id);
    return instance ? this.observed(instance) : null;
  }

  async observeAll(ids: string[]): Promise<Map<string, ObservedInstance>> {
    await this.control.delay();
    const result = new Map<string, ObservedInstance>();
    for (const id of ids) {
      const instance = this.instances.get(id);
      if (instance) result.set(id, this.observed(instance));
    }
    return result;
  }

  async create(spec: InstanceSpec): Promise<ObservedInstance> {
    await this.control.delay('compute.create');
    this.control.strike('compute.create', 'before');
    const snapshot = this.snapshots.get(spec.imageId);
    if (!BASE_IMAGES.includes(spec.imageId) && !snapshot) throw new DriverError('invalid', `image ${spec.imageId} does not exist on this provider`);
    let instance = this.instances.get(spec.id);
    if (!instance) {
      const baseImageId = snapshot?.baseImageId ?? spec.imageId;
      instance = { spec, phase: 'laid-out', boot: null, bootOutput: null, baseImageId, files: { ...snapshot?.files } };
      this.instances.set(spec.id, instance);
      this.save();
      // Halfway: the disk is laid out, the boot never started; a repeat starts it.
      this.control.strike('compute.create', 'halfway');
    }
    if (instance.phase === 'laid-out') this.boot(instance);
    const observed = this.observed(instance);
    if (instance.phase === 'failed') throw new DriverError('invalid', `boot failed: exited with code 1; last output: ${JSON.stringify(instance.bootOutput)}`);
    if (!observed.ready && Date.now() - instance.boot!.startedAt > this.control.bootTimeoutMs) {
      this.instances.delete(spec.id);
      this.save();
      throw new DriverError('invalid', `boot failed: not ready within ${this.control.bootTimeoutMs} ms`);
    }
    return observed;
  }

  async delete(id: string): Promise<void> {
    await this.control.delay();
    this.control.strike('compute.delete', 'before');
    const instance = this.instances.get(id);
    if (!instance) return;
    // Halfway: the process is stopped, its disk not yet removed; a repeat removes it.
    instance.phase = 'laid-out';
    this.save();
    this.control.strike('compute.delete', 'halfway');
    this.instances.delete(id);
    this.save();
  }

  /** Idle unless a test set a load (FakeControl.setCpuLoad): nothing runs to use CPU. */
  async usage(ids: string[]): Promise<Map<string, CpuUsage>> {
    await this.control.delay();
    const at = Date.now();
    const result = new Map<string, CpuUsage>();
    for (const id of ids) {
      const instance = this.instances.get(id);
      if (instance && this.observed(instance).running) result.set(id, { cpuSeconds: this.control.cpuSeconds(id, at), at });
    }
    return result;
  }

  async snapshot(spec: SnapshotSpec): Promise<SnapshotImage> {
    await this.control.delay();
    if (!/^[a-z0-9][a-z0-9-]{2,62}$/.test(spec.id) || BASE_IMAGES.includes(spec.id))
      throw new DriverError('invalid', `snapshot id ${JSON.stringify(spec.id)} is malformed or names an image`);
    const existing = this.snapshots.get(spec.id);
    if (existing) {
      if (existing.image.sourceInstanceId === spec.instanceId && existing.image.projectId === spec.projectId) return existing.image;
      throw new DriverError('invalid', `snapshot id ${spec.id} is taken by another image`);
    }
    const source = this.instances.get(spec.instanceId);
    if (!source) throw new DriverError('not_found', `instance ${spec.instanceId} does not exist on this provider`);
    const image: SnapshotImage = {
      id: spec.id,
      name: spec.name,
      description: `snapshot of instance ${spec.instanceId} (fake)`,
      projectId: spec.projectId,
      sourceInstanceId: spec.instanceId,
    };
    this.snapshots.set(spec.id, { image, baseImageId: source.baseImageId, files: { ...source.files } });
    this.save();
    return image;
  }

  async observeSnapshot(id: string): Promise<SnapshotImage | null> {
    await this.control.delay();
    return this.snapshots.get(id)?.image ?? null;
  }

  async deleteSnapshot(id: string): Promise<void> {
    await this.control.delay();
    this.snapshots.delete(id);
    this.save();
  }

  private boot(instance: FakeInstance): void {
    const now = Date.now();
    if (!instance.boot) {
      // Its first boot: what its user_data would write (FakeControl.writeAtFirstBoot).
      for (const [path, content] of Object.entries(this.control.takeFirstBootWrites(instance.spec.id))) instance.files[path] = (instance.files[path] ?? '') + content;
    }
    instance.boot = this.control.bootStarted(instance.spec.id, now);
    const failure = this.control.takeBootFailure();
    if (failure !== null) {
      instance.phase = 'failed';
      instance.bootOutput = failure;
    } else {
      instance.phase = 'booting';
    }
    this.save();
  }

  private observed(instance: FakeInstance): ObservedInstance {
    if (instance.phase === 'booting' && Date.now() - instance.boot!.startedAt >= this.control.bootMs) {
      instance.phase = 'running';
      this.control.bootReady(instance.boot!, instance.boot!.startedAt + this.control.bootMs);
      this.save();
    }
    const running = instance.phase === 'booting' || instance.phase === 'running';
    const { vcpus, ramMb } = instance.spec.flavor;
    return { running, ready: instance.phase === 'running', limits: `not enforced: fake provider (${vcpus} vcpu, ${ramMb} MB)`, host: 'fake-host' };
  }
}
