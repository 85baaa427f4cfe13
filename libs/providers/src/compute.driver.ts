import { CatalogImage } from './catalog.driver';

export interface InstanceSpec {
  id: string;
  imageId: string;
  address: string;
  port: number;
  userData: string | null;
  flavor: { vcpus: number; ramMb: number };
  /** The keypair a cloud provider puts in the server (the local provider has no login). */
  keyName?: string;
  /** The catalog's security group ids, for a cloud provider that enforces them itself (the local provider reads them from the database). */
  securityGroupIds?: string[];
  /**
   * Instances of one group (a cluster's members: its id) are spread over
   * the provider's hosts as far as it can, so one host lost takes one
   * member, not the cluster. The local provider has one host: no effect.
   */
  placementGroup?: string;
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
 * An instance's cumulative CPU time, read at a moment: two readings give its
 * utilisation (cpuFraction in libs/core).
 */
export interface CpuUsage {
  /** CPU time all of the instance's processes used since it booted, in seconds (every core added up). */
  cpuSeconds: number;
  /** When it was read, in milliseconds since the epoch. */
  at: number;
}

/** A snapshot image to make of an instance. */
export interface SnapshotSpec {
  /**
   * The new image's id, and the operation's key: a repeat with the same id
   * returns the image made the first time. Lowercase letters, digits and
   * hyphens, 3 to 63 of them (e.g. `snap-<uuid>`).
   */
  id: string;
  /** The instance whose files and start command the image takes. */
  instanceId: string;
  /** The project the image belongs to: the instance's own. */
  projectId: string;
  name: string;
}

/** A snapshot image as the provider holds it: an image of one project only. */
export interface SnapshotImage extends CatalogImage {
  projectId: string;
  sourceInstanceId: string;
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
  /**
   * Makes a private image of the instance as it is now (its files, what
   * it runs at boot), which `create` then boots like any image: the files
   * the instance made are there, the platform's own (its user_data, boot
   * state) are not, so an instance booted from it runs its own user_data.
   * The instance keeps running. Repeated with the same id, the same image;
   * an id that names another image, or a malformed one, is invalid; an
   * instance that does not exist is not_found.
   */
  snapshot(spec: SnapshotSpec): Promise<SnapshotImage>;
  /** The snapshot image with this id; null when there is none. */
  observeSnapshot(id: string): Promise<SnapshotImage | null>;
  /** Removes a snapshot image (instances booted from it keep their files); one that is gone succeeds. */
  deleteSnapshot(id: string): Promise<void>;
  /** Optional: removes what the provider keeps of a placement group once no instance is in it; one that is gone succeeds. */
  removePlacementGroup?(group: string): Promise<void>;
}

export const COMPUTE_DRIVER = Symbol('COMPUTE_DRIVER');
