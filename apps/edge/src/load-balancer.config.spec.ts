import { ANY_HOST, invalidListener, ListenerSpec } from '@stratus/providers';
import { renderBalancerConfig, serverArgs } from './load-balancer.config';

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

const listener = (check: ListenerSpec['check']): ListenerSpec => ({ id: 'lb', address: '127.0.0.9', port: 5432, protocol: 'tcp', check });

describe('serverArgs', () => {
  it('checks the backend on its own port, keeping its sessions when it is marked down', () => {
    expect(serverArgs(listener({ kind: 'connect' }), '127.0.0.10', 5432)).toBe('127.0.0.10:5432 check inter 2000 fall 3 rise 2');
  });

  it('a check on a port of its own judges a role: asked there, and the sessions of a backend marked down are shut', () => {
    expect(serverArgs(listener({ kind: 'http', path: '/primary', port: 8008, intervalMs: 500, fall: 2, rise: 1 }), '127.0.0.10', 5432)).toBe(
      '127.0.0.10:5432 check inter 500 fall 2 rise 1 port 8008 on-marked-down shutdown-sessions',
    );
  });
});

describe('invalidListener', () => {
  it('takes a check port of 1 to 65535 only', () => {
    expect(invalidListener(listener({ kind: 'http', path: '/primary', port: 8008 }))).toBeNull();
    for (const port of [0, 65536, 1.5]) expect(invalidListener(listener({ kind: 'http', path: '/primary', port }))).toBe('invalid health check port');
  });
});
