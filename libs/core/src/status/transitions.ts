/**
 * Every status a resource can hold and every move between them, in one place.
 * Workers and the API change statuses only through `compareAndSet`, which
 * refuses a move this table does not allow. Each table lists first the
 * status its rows are created in: leaving it ends the create (a metric,
 * compare-and-set.ts).
 */

export const INSTANCE_STATUSES = ['BUILD', 'ACTIVE', 'SHUTOFF', 'ERROR', 'DELETING'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export type Transitions<S extends string> = Readonly<Record<S, readonly S[]>>;

/** The status a table's rows are created in: its first (see above). */
export function creationStatus<S extends string>(transitions: Transitions<S>): S {
  return Object.keys(transitions)[0] as S;
}

export const INSTANCE_TRANSITIONS: Transitions<InstanceStatus> = {
  BUILD: ['ACTIVE', 'ERROR', 'DELETING'],
  // ACTIVE <-> SHUTOFF follows what the provider observes.
  ACTIVE: ['SHUTOFF', 'ERROR', 'DELETING'],
  SHUTOFF: ['ACTIVE', 'ERROR', 'DELETING'],
  ERROR: ['DELETING'],
  // A delete that failed on the provider is retried; the row goes when it succeeds.
  DELETING: [],
};

/** SPEC.md's `state` field is derived, never stored. */
export function instanceState(status: InstanceStatus): 'active' | 'stopped' | 'provisioning' {
  switch (status) {
    case 'BUILD':
      return 'provisioning';
    case 'ACTIVE':
      return 'active';
    case 'SHUTOFF':
    case 'ERROR':
    case 'DELETING':
      return 'stopped';
  }
}

export function canTransition<S extends string>(table: Transitions<S>, from: S, to: S): boolean {
  return table[from]?.includes(to) ?? false;
}

export class IllegalTransitionError extends Error {
  constructor(from: string, to: string) {
    super(`status transition ${from} -> ${to} is not allowed`);
  }
}

/**
 * Volumes, in Cinder's vocabulary. `attaching` and `detaching` are the
 * moments the provider is changing the attachment; a failed attach falls
 * back to `available` (the volume is fine, it is just not attached), a
 * failed detach back to `in-use` (the instance still reaches it).
 */
export const VOLUME_STATUSES = ['creating', 'available', 'attaching', 'in-use', 'detaching', 'deleting', 'error'] as const;
export type VolumeStatus = (typeof VOLUME_STATUSES)[number];

export const VOLUME_TRANSITIONS: Transitions<VolumeStatus> = {
  // Created with an instance (POST /v1/instances with `volume`): straight on to attaching.
  creating: ['available', 'attaching', 'error'],
  available: ['attaching', 'deleting'],
  attaching: ['in-use', 'available'],
  // An instance that is gone takes its attachment with it: in-use -> available directly.
  'in-use': ['detaching', 'available'],
  detaching: ['available', 'in-use'],
  error: ['deleting'],
  // The row is removed when the provider has deleted the file.
  deleting: [],
};

/**
 * Managed databases, caches and analytics servers. SPEC.md shows
 * provisioning, ready and error; `deleting` is ours (DESIGN.md 5). A ready
 * server that dies is restarted and stays ready; one that cannot be
 * restarted goes to error.
 */
export const DATABASE_STATUSES = ['provisioning', 'ready', 'error', 'deleting'] as const;
export type DatabaseStatus = (typeof DATABASE_STATUSES)[number];

export const DATABASE_TRANSITIONS: Transitions<DatabaseStatus> = {
  provisioning: ['ready', 'error', 'deleting'],
  ready: ['error', 'deleting'],
  error: ['deleting'],
  // The row goes when the server is gone.
  deleting: [],
};

/**
 * Clusters, in Heat's stack vocabulary. A build ends COMPLETE or FAILED;
 * healing, scaling and updates (PUT) run as UPDATE_IN_PROGRESS from any
 * state at rest. A rolling update whose new member cannot boot ends
 * UPDATE_FAILED, the members of the previous spec still serving; from there
 * the cluster heals, scales and takes updates as from COMPLETE. A delete may
 * start from any state but itself; one that cannot finish (a terminal driver
 * error) ends DELETE_FAILED, from where a new delete starts again.
 */
export const CLUSTER_STATUSES = [
  'CREATE_IN_PROGRESS',
  'CREATE_COMPLETE',
  'CREATE_FAILED',
  'UPDATE_IN_PROGRESS',
  'UPDATE_COMPLETE',
  'UPDATE_FAILED',
  'DELETE_IN_PROGRESS',
  'DELETE_FAILED',
] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];

export const CLUSTER_TRANSITIONS: Transitions<ClusterStatus> = {
  CREATE_IN_PROGRESS: ['CREATE_COMPLETE', 'CREATE_FAILED', 'DELETE_IN_PROGRESS'],
  CREATE_COMPLETE: ['UPDATE_IN_PROGRESS', 'DELETE_IN_PROGRESS'],
  CREATE_FAILED: ['DELETE_IN_PROGRESS'],
  // A heal still under way when another member is lost goes on as the same update; a PUT meanwhile supersedes it (a new generation).
  UPDATE_IN_PROGRESS: ['UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE', 'UPDATE_FAILED', 'DELETE_IN_PROGRESS'],
  UPDATE_COMPLETE: ['UPDATE_IN_PROGRESS', 'DELETE_IN_PROGRESS'],
  UPDATE_FAILED: ['UPDATE_IN_PROGRESS', 'DELETE_IN_PROGRESS'],
  // The row goes when the members and the balancer are gone.
  DELETE_IN_PROGRESS: ['DELETE_FAILED'],
  DELETE_FAILED: ['DELETE_IN_PROGRESS'],
};
