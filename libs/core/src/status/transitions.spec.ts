import { canTransition, INSTANCE_STATUSES, INSTANCE_TRANSITIONS, InstanceStatus, instanceState } from './transitions';

// Every pair of statuses, and whether the move is allowed. Anything not listed is refused.
const allowed: Array<[InstanceStatus, InstanceStatus]> = [
  ['BUILD', 'ACTIVE'],
  ['BUILD', 'ERROR'],
  ['BUILD', 'DELETING'],
  ['ACTIVE', 'SHUTOFF'],
  ['ACTIVE', 'ERROR'],
  ['ACTIVE', 'DELETING'],
  ['SHUTOFF', 'ACTIVE'],
  ['SHUTOFF', 'ERROR'],
  ['SHUTOFF', 'DELETING'],
  ['ERROR', 'DELETING'],
];

const table = INSTANCE_STATUSES.flatMap((from) =>
  INSTANCE_STATUSES.map((to) => [from, to, allowed.some(([a, b]) => a === from && b === to)] as const),
);

describe('instance status transitions', () => {
  it.each(table)('%s -> %s allowed: %s', (from, to, expected) => {
    expect(canTransition(INSTANCE_TRANSITIONS, from, to)).toBe(expected);
  });

  it.each([
    ['BUILD', 'provisioning'],
    ['ACTIVE', 'active'],
    ['SHUTOFF', 'stopped'],
    ['ERROR', 'stopped'],
    ['DELETING', 'stopped'],
  ] as const)('status %s shows state %s', (status, state) => {
    expect(instanceState(status)).toBe(state);
  });
});
