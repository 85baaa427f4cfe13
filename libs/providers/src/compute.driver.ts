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
}

/**
 * An instance's cumulative CPU time, read at a moment: two readings give its
 * utilisation (cpuFraction in libs/core).
 */
export interface CpuUsage {
  /** CPU time all of the instance's processes used since it booted, in seconds (every core added up). */
  cpuSeconds: number;
  /** When it was read, in milliseconds since the epoch. */
  at: number;
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
  /**
   * The cumulative CPU time of each instance that runs, read now; ids of
   * instances that do not run are not in the map. Reads only what the
   * provider measures of those instances (nothing runs inside them).
   */
  usage(ids: string[]): Promise<Map<string, CpuUsage>>;
}

export const COMPUTE_DRIVER = Symbol('COMPUTE_DRIVER');
