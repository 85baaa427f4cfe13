export interface InstanceSpec {
  id: string;
  imageId: string;
  address: string;
  port: number;
  userData: string | null;
  flavor: { vcpus: number; ramMb: number };
}

export interface ObservedInstance {
  /** Something of it runs (booting or booted). */
  running: boolean;
  /** It has booted: it serves, and the instance may be called ACTIVE. */
  ready: boolean;
  /** How the provider holds the instance to its flavor, or why it cannot. */
  limits: string;
  /** The machine it runs on, when the provider can say: what a cluster's placement is judged by. */
  host?: string;
}

/**
 * Compute on some provider, in the controller-runtime shape: every
 * operation is keyed by the instance id, safe to repeat, and does not block
 * on a boot. `create` looks before it makes anything and returns once the
 * boot is under way; callers come back later (another `create`, or
 * `observe`) until `ready`. `delete` of something already gone succeeds.
 */
export interface ComputeDriver {
  /** null when nothing of this instance exists on the provider. */
  observe(id: string): Promise<ObservedInstance | null>;
  /** One sweep over many instances; missing ids are not in the map. */
  observeAll(ids: string[]): Promise<Map<string, ObservedInstance>>;
  /**
   * Starts the boot when nothing of it runs, and says how far it got
   * (`ready: false` while it boots). A boot that failed, or did not finish
   * within the provider's boot timeout, is a terminal DriverError from the
   * call that notices it (a timed-out boot is removed first).
   */
  create(spec: InstanceSpec): Promise<ObservedInstance>;
  delete(id: string): Promise<void>;
}

export const COMPUTE_DRIVER = Symbol('COMPUTE_DRIVER');
