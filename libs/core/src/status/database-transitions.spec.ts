import { canTransition, DATABASE_STATUSES, DATABASE_TRANSITIONS, DatabaseStatus } from './transitions';

// Every pair of statuses of a managed database, cache or analytics server; anything not listed is refused.
const allowed: Array<[DatabaseStatus, DatabaseStatus]> = [
  ['provisioning', 'ready'],
  ['provisioning', 'error'],
  ['provisioning', 'deleting'],
  ['ready', 'error'],
  ['ready', 'deleting'],
  ['error', 'deleting'],
];

const table = DATABASE_STATUSES.flatMap((from) => DATABASE_STATUSES.map((to) => [from, to, allowed.some(([a, b]) => a === from && b === to)] as const));

describe('managed database status transitions', () => {
  it.each(table)('%s -> %s allowed: %s', (from, to, expected) => {
    expect(canTransition(DATABASE_TRANSITIONS, from, to)).toBe(expected);
  });

  it('never goes back to provisioning, and never leaves deleting', () => {
    for (const from of DATABASE_STATUSES) expect(canTransition(DATABASE_TRANSITIONS, from, 'provisioning')).toBe(false);
    expect(DATABASE_TRANSITIONS.deleting).toEqual([]);
  });
});
