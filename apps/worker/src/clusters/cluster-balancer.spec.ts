import { clusterListener, dnsListener, listenerAsWanted, MEMBER_CHECK } from './cluster-balancer';

describe('a cluster on the load-balancer driver', () => {
  const cluster = { id: '0b4c6a52-3f7e-4a33-8f07-9a3e7d1f2c11', port: 8080, dnsName: 'web-0b4c6a52.localhost', address: '127.80.0.9' };

  it('listens on its own address and port, by its address, its dnsName and any other name, with the members check', () => {
    expect(clusterListener(cluster)).toEqual({
      id: `cluster-${cluster.id}`,
      address: '127.80.0.9',
      port: 8080,
      protocol: 'http',
      hosts: ['127.80.0.9', 'web-0b4c6a52.localhost', '*'],
      check: MEMBER_CHECK,
    });
  });

  it("has its dnsName on the edge's HTTP listener forward to the balancer, and nowhere without one", () => {
    expect(dnsListener(cluster, { host: '127.0.0.1', port: 8081 })).toEqual({
      listener: { id: `clusterdns-${cluster.id}`, address: '127.0.0.1', port: 8081, protocol: 'http', hosts: ['web-0b4c6a52.localhost'], check: { kind: 'connect' } },
      backend: { address: '127.80.0.9', port: 8080 },
    });
    expect(dnsListener(cluster, null)).toBeNull();
  });

  it('tells a listener held as wanted from one that differs', () => {
    const want = clusterListener(cluster);
    expect(listenerAsWanted({ ...want, hosts: [...want.hosts!].reverse(), check: { rise: 1, fall: 2, intervalMs: 250, kind: 'connect' } }, want)).toBe(true);
    expect(listenerAsWanted(undefined, want)).toBe(false);
    expect(listenerAsWanted({ ...want, port: 80 }, want)).toBe(false);
    expect(listenerAsWanted({ ...want, hosts: ['127.80.0.9'] }, want)).toBe(false);
    expect(listenerAsWanted({ ...want, check: { ...MEMBER_CHECK, intervalMs: 2000 } }, want)).toBe(false);
  });
});
