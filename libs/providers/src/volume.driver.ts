export interface AttachedVolume {
  /** Where the instance sees the volume, relative to its home (working directory). */
  mountpoint: string;
}

/**
 * Block storage on some provider. Every operation is keyed by the volume id
 * and safe to repeat: `create` of an existing volume and `delete` or
 * `detach` of something already gone succeed.
 */
export interface VolumeDriver {
  /** How this provider backs volumes, for operators (e.g. "ext4 image, loop-mounted"). */
  readonly backing: string;
  create(id: string, sizeGb: number): Promise<void>;
  /** A retryable DriverError while the instance is not ready to receive a volume. */
  attach(id: string, instanceId: string): Promise<AttachedVolume>;
  detach(id: string, instanceId: string | null): Promise<void>;
  delete(id: string): Promise<void>;
  exists(id: string): Promise<boolean>;
}

export const VOLUME_DRIVER = Symbol('VOLUME_DRIVER');

/** Where an attached volume appears inside an instance's home. */
export function volumeMountpoint(id: string): string {
  return `volumes/${id}`;
}
