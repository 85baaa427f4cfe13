import { PORT_BUSY } from '@stratus/core';
import { ListenerSpec, LoadBalancerDriver, ObservedListener } from '@stratus/providers';
import { holdsAsWanted, makeOneBackend, OneBackendListener } from './one-backend-listener';

describe('a one-backend listener against what the provider holds', () => {
  const listener: ListenerSpec = { id: 'route-1', address: '10.0.0.200', port: 20001, protocol: 'tcp', check: { kind: 'connect' } };
  const want: OneBackendListener = { listener, backend: { address: '10.0.0.5', port: 5432 } };
  const serving = (status: string, spec: ListenerSpec | undefined = listener): ObservedListener => ({
    status,
    backends: [{ ...want.backend, state: 'active', health: 'up', connections: 0 }],
    ...(spec ? { spec } : {}),
  });

  it('holds one as wanted while it serves or is being taken up, its backend active', () => {
    expect(holdsAsWanted(serving('ok'), want)).toBe(true);
    expect(holdsAsWanted(serving('pending'), want)).toBe(true);
    // A provider that does not say what it holds is taken at its word.
    expect(holdsAsWanted(serving('ok', undefined), want)).toBe(true);
  });

  it('does not hold one that is missing, shaped otherwise, or with another backend', () => {
    expect(holdsAsWanted(null, want)).toBe(false);
    expect(holdsAsWanted(serving('ok', { ...listener, port: 20002 }), want)).toBe(false);
    expect(holdsAsWanted({ ...serving('ok'), backends: [{ address: '10.0.0.6', port: 5432, state: 'active', health: 'up', connections: 0 }] }, want)).toBe(false);
    expect(holdsAsWanted({ ...serving('ok'), backends: [] }, want)).toBe(false);
  });

  it('does not hold one the provider says it does not serve, shaped as wanted or not: ensuring it again is its repair', () => {
    expect(holdsAsWanted(serving('the Octavia load balancer 5c0e2a4e-9d1b-4f3e-8a61-0d2b7c9e4f10 is in ERROR'), want)).toBe(false);
    expect(holdsAsWanted(serving(PORT_BUSY, undefined), want)).toBe(false);
  });

  it('ensures one the provider does not serve again, with its backend; one held as wanted is left alone', async () => {
    const calls: string[] = [];
    const driver = {
      ensureListener: async (spec: ListenerSpec) => void calls.push(`ensure ${spec.id}`),
      addBackend: async (id: string, b: { address: string; port: number }) => void calls.push(`add ${id} ${b.address}:${b.port}`),
      removeBackend: async (id: string, b: { address: string; port: number }) => void calls.push(`remove ${id} ${b.address}:${b.port}`),
    } as unknown as LoadBalancerDriver;
    await makeOneBackend(driver, want, serving('ok'));
    expect(calls).toEqual([]);
    await makeOneBackend(driver, want, serving('the Octavia load balancer 5c0e2a4e-9d1b-4f3e-8a61-0d2b7c9e4f10 is in ERROR'));
    expect(calls).toEqual(['ensure route-1', 'add route-1 10.0.0.5:5432']);
  });
});
