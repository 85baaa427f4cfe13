import { placementOf } from './cluster-placement';

describe('placementOf', () => {
  it.each([
    [[], 'pending'],
    [[null, null], 'pending'],
    [['h1'], 'single-host'],
    [['h1', 'h1', 'h1'], 'single-host'],
    [['h1', 'h2', 'h3'], 'spread'],
    [['h1', 'h2'], 'spread'],
    [['h1', 'h1', 'h2'], 'shared'],
  ] as const)('%j is %s', (hosts, status) => {
    expect(placementOf([...hosts]).status).toBe(status);
  });

  it('says that one machine holds every member, and that two members are not highly available', () => {
    expect(placementOf(['h1', 'h1', 'h1']).reason).toContain('not the machine');
    expect(placementOf(['h1', 'h2']).reason).toContain('not highly available');
  });
});
