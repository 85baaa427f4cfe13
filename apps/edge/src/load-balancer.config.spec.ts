import { invalidListener, ListenerSpec } from '@stratus/providers';
import { serverArgs } from './load-balancer.config';

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
