import { GatewayRoute } from '@stratus/core';
import { OneBackendListener } from './one-backend-listener';

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
export function routeListener(route: GatewayRoute, gatewayHost: string): OneBackendListener {
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
