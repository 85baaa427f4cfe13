/**
 * Every status a resource can hold and every move between them, in one place.
 * Workers and the API change statuses only through `compareAndSet`, which
 * refuses a move this table does not allow.
 */

export const INSTANCE_STATUSES = ['BUILD', 'ACTIVE', 'SHUTOFF', 'ERROR', 'DELETING'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export type Transitions<S extends string> = Readonly<Record<S, readonly S[]>>;

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
