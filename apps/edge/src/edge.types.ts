/** What the edge reads from PostgreSQL and hands to its HAProxy processes. */

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
