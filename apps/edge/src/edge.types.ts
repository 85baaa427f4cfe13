/** What the edge reads from PostgreSQL and hands to its HAProxy processes. */
import type { BackendSpec, ListenerSpec } from '@stratus/providers';

export interface RouteSpec {
  /** The route's id: a route deleted and created again on the same port is a new route (its old connections are cut). */
  id: string;
  port: number;
  targetIp: string;
  targetPort: number;
  /** PEMs when the route terminates TLS; they reach HAProxy only over its runtime API, never a file. */
  tls: { certPem: string; keyPem: string } | null;
}

export interface HostSpec {
  hostname: string;
  ip: string;
  port: number;
}

/** A load balancer as the edge serves it: its listener, and its backends that are not on their way out. */
export interface BalancerSpec {
  listener: ListenerSpec;
  /** A backend no longer here is drained, then removed once its last connection closed. */
  backends: Array<BackendSpec & { state: 'active' | 'draining' }>;
}
