import { ComputeDriver, DriverError, InstanceSpec, ObservedInstance } from '@stratus/providers';
import { FakeBoot, FakeControl } from './fake-control';

interface FakeInstance {
  spec: InstanceSpec;
  /** laid-out: its disk exists, nothing runs yet (a create cut short); booting/running; failed: its boot exited. */
  phase: 'laid-out' | 'booting' | 'running' | 'failed';
  boot: FakeBoot | null;
  bootOutput: string | null;
}

/**
 * FAKE compute, in memory: an instance "boots" for `control.bootMs` and is
 * then ready. Nothing runs; it exists to test the control plane (the
 * contract suite, the worker's non-blocking create) without real processes.
 */
export class FakeComputeDriver implements ComputeDriver {
  private readonly instances = new Map<string, FakeInstance>();

  constructor(private readonly control: FakeControl) {
    for (const [id, instance] of Object.entries(control.restore<Record<string, FakeInstance>>('compute') ?? {})) this.instances.set(id, instance);
  }

  /** What runs survives the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('compute', Object.fromEntries(this.instances));
  }

  /** Whether an instance exists at all (the fake volume driver attaches only to one). */
  has(id: string): boolean {
    return this.instances.has(id);
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
    await this.control.delay();
    this.control.strike('compute.create', 'before');
    if (!['demo-web', 'plain'].includes(spec.imageId)) throw new DriverError('invalid', `image ${spec.imageId} does not exist on this provider`);
    let instance = this.instances.get(spec.id);
    if (!instance) {
      instance = { spec, phase: 'laid-out', boot: null, bootOutput: null };
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

  private boot(instance: FakeInstance): void {
    const now = Date.now();
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
