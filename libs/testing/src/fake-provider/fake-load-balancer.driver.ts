import { BackendSpec, BackendState, DriverError, invalidBackend, invalidListener, ListenerSpec, LoadBalancerDriver, ObservedListener, portTaken } from '@stratus/providers';
import { existsSync, readFileSync } from 'node:fs';
import { FakeControl } from './fake-control';

interface FakeListener {
  spec: ListenerSpec;
  backends: Map<string, BackendSpec & { state: BackendState }>;
}

const keyOf = (b: BackendSpec) => `${b.address}:${b.port}`;

type SavedListener = { spec: ListenerSpec; backends: Array<BackendSpec & { state: BackendState }> };

/**
 * The listeners as a worker on the fake provider last saved them (its state
 * file, see fakeStateFile): for a test in another process, since nothing
 * listens under the fake provider.
 */
export function savedFakeListeners(stateFile: string): SavedListener[] {
  return existsSync(stateFile) ? ((JSON.parse(readFileSync(stateFile, 'utf8')).loadBalancers ?? []) as SavedListener[]) : [];
}

/** One of savedFakeListeners, or null. */
export function savedFakeListener(stateFile: string, id: string): SavedListener | null {
  return savedFakeListeners(stateFile).find((l) => l.spec.id === id) ?? null;
}

/**
 * The FAKE provider's load balancers: listeners and backends in memory,
 * nothing listens. A listener serves as soon as it is asked for; no health
 * check runs (every backend's health is `unknown`), and a removed backend
 * has no connections to wait for, so it is gone at once.
 */
export class FakeLoadBalancerDriver implements LoadBalancerDriver {
  private readonly listeners = new Map<string, FakeListener>();

  constructor(private readonly control: FakeControl) {
    const saved = control.restore<Array<{ spec: ListenerSpec; backends: Array<BackendSpec & { state: BackendState }> }>>('loadBalancers') ?? [];
    for (const { spec, backends } of saved) this.listeners.set(spec.id, { spec, backends: new Map(backends.map((b) => [keyOf(b), b])) });
  }

  /** Load balancers survive the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist(
      'loadBalancers',
      [...this.listeners.values()].map((l) => ({ spec: l.spec, backends: [...l.backends.values()] })),
    );
  }

  async ensureListener(spec: ListenerSpec): Promise<void> {
    await this.control.delay();
    const invalid = invalidListener(spec);
    if (invalid) throw new DriverError('invalid', invalid);
    for (const other of this.listeners.values()) {
      const taken = portTaken(spec, other.spec);
      if (taken) throw taken;
    }
    const listener = this.listeners.get(spec.id);
    if (listener) listener.spec = spec;
    else this.listeners.set(spec.id, { spec, backends: new Map() });
    this.save();
  }

  async deleteListener(id: string): Promise<void> {
    await this.control.delay();
    this.listeners.delete(id);
    this.save();
  }

  async addBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    await this.control.delay();
    const invalid = invalidBackend(backend);
    if (invalid) throw new DriverError('invalid', invalid);
    const listener = this.listeners.get(listenerId);
    if (!listener) throw new DriverError('not_found', `no load balancer ${listenerId}`);
    listener.backends.set(keyOf(backend), { address: backend.address, port: backend.port, state: 'active' });
    this.save();
  }

  async drainBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    await this.control.delay();
    const found = this.listeners.get(listenerId)?.backends.get(keyOf(backend));
    if (!found) throw new DriverError('not_found', `no backend ${keyOf(backend)} on load balancer ${listenerId}`);
    found.state = 'draining';
    this.save();
  }

  async removeBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    await this.control.delay();
    this.listeners.get(listenerId)?.backends.delete(keyOf(backend));
    this.save();
  }

  async observe(id: string): Promise<ObservedListener | null> {
    await this.control.delay();
    const listener = this.listeners.get(id);
    if (!listener) return null;
    return { status: 'ok', backends: [...listener.backends.values()].map((b) => ({ ...b, health: 'unknown', connections: 0 })), spec: listener.spec };
  }

  async listenerIds(prefix: string): Promise<string[]> {
    await this.control.delay();
    return [...this.listeners.keys()].filter((id) => id.startsWith(prefix)).sort();
  }
}
