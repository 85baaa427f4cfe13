import { BackendSpec, ListenerSpec, listenerFault, LoadBalancerDriver, ObservedListener } from '@stratus/providers';

/**
 * A load-balancer listener with one backend: what a gateway route and a
 * proxy host each are on the provider. The rules both keep to, in one place.
 */
export interface OneBackendListener {
  listener: ListenerSpec;
  backend: BackendSpec;
}

const sortedHosts = (l: ListenerSpec | undefined) => [...new Set(l?.hosts ?? [])].sort().join(',');

/**
 * Whether the provider holds the listener as wanted: the same address,
 * port, protocol, Host names and certificate, and exactly its backend,
 * active. A provider that does not say what it holds (no `spec`) is taken
 * at its word. One it says it does not serve (listenerFault) is not held,
 * however it is shaped: ensuring it again is how the provider repairs it.
 */
export function holdsAsWanted(seen: ObservedListener | null, want: OneBackendListener): boolean {
  if (!seen || listenerFault(seen)) return false;
  const backends = seen.backends.filter((b) => b.state !== 'removing');
  if (backends.length !== 1 || backends[0].state !== 'active' || backends[0].address !== want.backend.address || backends[0].port !== want.backend.port) return false;
  const spec = seen.spec;
  if (!spec) return true;
  return (
    spec.address === want.listener.address &&
    spec.port === want.listener.port &&
    spec.protocol === want.listener.protocol &&
    (spec.protocol !== 'http' || sortedHosts(spec) === sortedHosts(want.listener)) &&
    (spec.tls?.certificateId ?? null) === (want.listener.tls?.certificateId ?? null)
  );
}

/**
 * Brings the listener to `want`, changing only what differs from `seen`
 * (what the provider said it holds). The wanted backend is added before any
 * other is removed, so a listener whose backend moves (a proxy host's new
 * forward port) is never without one: for a moment it may have both, never
 * neither (a Host map without the name would answer 404 meanwhile).
 */
export async function makeOneBackend(driver: LoadBalancerDriver, want: OneBackendListener, seen: ObservedListener | null): Promise<void> {
  if (holdsAsWanted(seen, want)) return;
  const id = want.listener.id;
  // ensureListener keeps the backends: those seen are still there.
  await driver.ensureListener(want.listener);
  await driver.addBackend(id, want.backend);
  for (const b of seen?.backends ?? []) {
    if (b.state !== 'removing' && (b.address !== want.backend.address || b.port !== want.backend.port)) await driver.removeBackend(id, b);
  }
}
