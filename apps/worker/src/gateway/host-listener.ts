import { OneBackendListener } from './one-backend-listener';

/** The load-balancer listener of a proxy host: an HTTP listener with one Host name and one backend. */
export const HOST_LISTENER_PREFIX = 'host-';

export function hostListenerId(proxyHostId: string): string {
  return `${HOST_LISTENER_PREFIX}${proxyHostId}`;
}

/** A proxy host as the worker reads it: its row and what its instance holds now. */
export interface ProxyHostTarget {
  id: string;
  hostname: string;
  forwardPort: number;
  /** null for a cluster's proxy host, which forwards to the cluster's balancer. */
  instanceId: string | null;
  /** null until the instance's create job has it assigned, and again once its delete gave it up. */
  address: string | null;
  instanceStatus: string;
}

/**
 * What the proxy host asks of the driver: on the edge's HTTP listener
 * (`http`), its name to its instance's address and forward port; null when
 * nothing may serve it (its instance holds no address, or there is no HTTP
 * listener). A connect check, as for routes: with one backend a failed check
 * could only refuse what the backend refuses itself (the host router skips it).
 */
export function hostListener(host: ProxyHostTarget, http: { host: string; port: number } | null): OneBackendListener | null {
  if (!host.address || !http) return null;
  return {
    listener: { id: hostListenerId(host.id), address: http.host, port: http.port, protocol: 'http', hosts: [host.hostname], check: { kind: 'connect' } },
    backend: { address: host.address, port: host.forwardPort },
  };
}
