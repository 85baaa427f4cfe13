import { canTransition, CLUSTER_STATUSES, CLUSTER_TRANSITIONS, ClusterStatus } from './transitions';

// Every pair of statuses, and whether the move is allowed. Anything not listed is refused.
const allowed: Array<[ClusterStatus, ClusterStatus]> = [
  ['CREATE_IN_PROGRESS', 'CREATE_COMPLETE'],
  ['CREATE_IN_PROGRESS', 'CREATE_FAILED'],
  ['CREATE_IN_PROGRESS', 'DELETE_IN_PROGRESS'],
  ['CREATE_COMPLETE', 'UPDATE_IN_PROGRESS'],
  ['CREATE_COMPLETE', 'DELETE_IN_PROGRESS'],
  ['CREATE_FAILED', 'DELETE_IN_PROGRESS'],
  ['UPDATE_IN_PROGRESS', 'UPDATE_IN_PROGRESS'],
  ['UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE'],
  ['UPDATE_IN_PROGRESS', 'UPDATE_FAILED'],
  ['UPDATE_IN_PROGRESS', 'DELETE_IN_PROGRESS'],
  ['UPDATE_COMPLETE', 'UPDATE_IN_PROGRESS'],
  ['UPDATE_COMPLETE', 'DELETE_IN_PROGRESS'],
  ['UPDATE_FAILED', 'UPDATE_IN_PROGRESS'],
  ['UPDATE_FAILED', 'DELETE_IN_PROGRESS'],
  ['DELETE_IN_PROGRESS', 'DELETE_FAILED'],
  ['DELETE_FAILED', 'DELETE_IN_PROGRESS'],
];

const table = CLUSTER_STATUSES.flatMap((from) => CLUSTER_STATUSES.map((to) => [from, to, allowed.some(([a, b]) => a === from && b === to)] as const));

describe('cluster status transitions', () => {
  it.each(table)('%s -> %s allowed: %s', (from, to, expected) => {
    expect(canTransition(CLUSTER_TRANSITIONS, from, to)).toBe(expected);
  });
});
