import { GatewayRoute } from '@stratus/core';
import { BackendSpec, ListenerSpec, ObservedListener } from '@stratus/providers';

/** The load-balancer listener of a gateway route: a listener with one backend. */
export const ROUTE_LISTENER_PREFIX = 'route-';

export function routeListenerId(routeId: string): string {
  return `${ROUTE_LISTENER_PREFIX}${routeId}`;
}

/**
 * What the route asks of the driver. A connect check: with one backend a
 * failed check could only refuse what the backend refuses itself, so
 * providers may skip it (the edge's gateway does); the route forwards even
 * before its target listens, as SPEC.md's routes always have.
 */
export function routeListener(route: GatewayRoute, gatewayHost: string): { listener: ListenerSpec; backend: BackendSpec } {
  return {
    listener: {
      id: routeListenerId(route.id),
      address: gatewayHost,
      port: route.port,
      protocol: 'tcp',
      ...(route.certificateId !== null ? { tls: { certificateId: route.certificateId } } : {}),
      check: { kind: 'connect' },
    },
    backend: { address: route.targetIp, port: route.targetPort },
  };
}

/**
 * Whether the provider holds the route's listener as wanted: the same
 * address, port, protocol and certificate, and exactly its backend, active.
 * A provider that does not say what it holds (no `spec`) is taken at its word.
 */
export function holdsAsWanted(seen: ObservedListener | null, want: { listener: ListenerSpec; backend: BackendSpec }): boolean {
  if (!seen) return false;
  const backends = seen.backends.filter((b) => b.state !== 'removing');
  if (backends.length !== 1 || backends[0].state !== 'active' || backends[0].address !== want.backend.address || backends[0].port !== want.backend.port) return false;
  const spec = seen.spec;
  if (!spec) return true;
  return (
    spec.address === want.listener.address &&
    spec.port === want.listener.port &&
    spec.protocol === want.listener.protocol &&
    (spec.tls?.certificateId ?? null) === (want.listener.tls?.certificateId ?? null)
  );
}
