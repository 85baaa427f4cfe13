import { patroniMemberRuns } from './patroni';

describe('patroniMemberRuns', () => {
  it('counts a member running its PostgreSQL, in the words of either Patroni', () => {
    // Patroni 3.0 says running for every member; later ones say streaming for a replica that streams.
    expect(patroniMemberRuns({ state: 'running' })).toBe(true);
    expect(patroniMemberRuns({ state: 'streaming' })).toBe(true);
    for (const state of ['starting', 'stopped', 'restarting', 'crashed', 'creating replica', '']) expect(patroniMemberRuns({ state })).toBe(false);
  });
});
