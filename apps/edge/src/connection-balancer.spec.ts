import { BALANCE_SLACK, ConnectionBalancer } from './connection-balancer';

/** A burst of `n` connections accepted by worker 1 before any new view arrives; what it keeps and what it passes to whom. */
function burst(balancer: ConnectionBalancer, n: number, open = 0): { kept: number; passed: Record<number, number> } {
  const passed: Record<number, number> = {};
  for (let i = 0; i < n; i++) {
    const to = balancer.pick(open);
    if (to === null) open++;
    else passed[to] = (passed[to] ?? 0) + 1;
  }
  return { kept: open, passed };
}

describe('ConnectionBalancer', () => {
  it('with no other worker known, keeps everything', () => {
    expect(burst(new ConnectionBalancer(1), 16)).toEqual({ kept: 16, passed: {} });
  });

  it('splits a burst of 16 that the kernel gave one worker 9/7, counting what it passed as the other one', () => {
    const balancer = new ConnectionBalancer(1);
    balancer.update({ 1: 0, 2: 0 });
    expect(burst(balancer, 16)).toEqual({ kept: 9, passed: { 2: 7 } });
  });

  it('passes to the least loaded of several, and never to itself', () => {
    const balancer = new ConnectionBalancer(2);
    balancer.update({ 1: 6, 2: 6, 3: 2, 4: 9 });
    expect(burst(balancer, 6, 6)).toEqual({ kept: 8, passed: { 3: 4 } });
  });

  it('leaves everyday jitter alone: fewer than BALANCE_SLACK ahead keeps it', () => {
    const balancer = new ConnectionBalancer(1);
    balancer.update({ 1: 9, 2: 8 });
    expect(balancer.pick(8 + BALANCE_SLACK - 1)).toBeNull();
    expect(balancer.pick(8 + BALANCE_SLACK)).toBe(2);
  });

  it('a new view replaces what it passed since the last one', () => {
    const balancer = new ConnectionBalancer(1);
    balancer.update({ 1: 0, 2: 0 });
    expect(balancer.pick(10)).toBe(2);
    expect(balancer.pick(2)).toBeNull(); // 2 is not 2 ahead of 0 + 1 passed
    balancer.update({ 1: 2, 2: 0 });
    expect(balancer.pick(2)).toBe(2);
  });
});
