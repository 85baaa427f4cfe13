export interface InstanceSpec {
  id: string;
  imageId: string;
  address: string;
  port: number;
  userData: string | null;
  flavor: { vcpus: number; ramMb: number };
}

export interface ObservedInstance {
  running: boolean;
  pid: number | null;
  /** How the provider holds the instance to its flavor, or why it cannot. */
  limits: string;
}

/**
 * Compute on some provider. Every operation is keyed by the instance id and
 * safe to repeat: `create` looks before it makes anything, `delete` of
 * something already gone succeeds.
 */
export interface ComputeDriver {
  /** null when nothing of this instance exists on the provider. */
  observe(id: string): Promise<ObservedInstance | null>;
  /** One sweep over many instances; missing ids are not in the map. */
  observeAll(ids: string[]): Promise<Map<string, ObservedInstance>>;
  /** Resolves once the instance has booted; a boot failure is a terminal DriverError. */
  create(spec: InstanceSpec): Promise<ObservedInstance>;
  delete(id: string): Promise<void>;
  /** Called when the provider notices an instance stopped, so status can follow promptly. */
  onExit(listener: (id: string) => void): void;
}

export const COMPUTE_DRIVER = Symbol('COMPUTE_DRIVER');
