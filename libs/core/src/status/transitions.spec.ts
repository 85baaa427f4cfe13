import { canTransition, INSTANCE_STATUSES, INSTANCE_TRANSITIONS, InstanceStatus, instanceState, VOLUME_STATUSES, VOLUME_TRANSITIONS, VolumeStatus } from './transitions';

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

const table = INSTANCE_STATUSES.flatMap((from) => INSTANCE_STATUSES.map((to) => [from, to, allowed.some(([a, b]) => a === from && b === to)] as const));

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

describe('volume status transitions', () => {
  const allowedVolume: Array<[VolumeStatus, VolumeStatus]> = [
    ['creating', 'available'],
    ['creating', 'attaching'],
    ['creating', 'error'],
    ['available', 'attaching'],
    ['available', 'deleting'],
    ['attaching', 'in-use'],
    ['attaching', 'available'],
    ['in-use', 'detaching'],
    ['in-use', 'available'],
    ['detaching', 'available'],
    ['detaching', 'in-use'],
    ['error', 'deleting'],
  ];
  const volumeTable = VOLUME_STATUSES.flatMap((from) => VOLUME_STATUSES.map((to) => [from, to, allowedVolume.some(([a, b]) => a === from && b === to)] as const));

  it.each(volumeTable)('%s -> %s allowed: %s', (from, to, expected) => {
    expect(canTransition(VOLUME_TRANSITIONS, from, to)).toBe(expected);
  });
});
