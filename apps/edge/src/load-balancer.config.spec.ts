import { ANY_HOST, ListenerSpec } from '@stratus/providers';
import { renderBalancerConfig } from './load-balancer.config';

describe('renderBalancerConfig', () => {
  const http = (id: string, hosts: string[]): ListenerSpec => ({ id, address: '127.80.0.9', port: 8080, protocol: 'http', hosts, check: { kind: 'connect' } });
  const render = (listeners: ListenerSpec[]) => renderBalancerConfig({ address: '127.80.0.9', port: 8080, listeners, threads: 1, socket: '/run/x.sock' });

  it('answers a Host no listener names with 404', () => {
    const config = render([http('a', ['a.localhost'])]);
    expect(config).toContain('use_backend l_a if { var(txn.host) -m str a.localhost }');
    expect(config).toContain('default_backend unknown_host');
  });

  it('gives every name no other listener has to the listener with ANY_HOST, and never matches the word itself', () => {
    const config = render([http('a', ['a.localhost']), http('b', ['127.80.0.9', ANY_HOST])]);
    expect(config).toContain('use_backend l_a if { var(txn.host) -m str a.localhost }');
    expect(config).toContain('use_backend l_b if { var(txn.host) -m str 127.80.0.9 }');
    expect(config).toContain('default_backend l_b');
    expect(config).not.toContain(`-m str ${ANY_HOST}`);
  });
});
