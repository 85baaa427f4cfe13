import { Cluster } from '@stratus/core';
import { ANY_HOST, HealthCheckSpec, ListenerSpec } from '@stratus/providers';
import { OneBackendListener } from '../gateway/one-backend-listener';

/** A cluster's balancer: an HTTP listener on the cluster's own address and port, its members the pool. */
export const CLUSTER_LISTENER_PREFIX = 'cluster-';
/** The cluster's dnsName on the edge's HTTP listener (the proxy hosts' one), forwarding to the balancer. */
export const CLUSTER_DNS_PREFIX = 'clusterdns-';

export const clusterListenerId = (clusterId: string) => `${CLUSTER_LISTENER_PREFIX}${clusterId}`;
export const clusterDnsListenerId = (clusterId: string) => `${CLUSTER_DNS_PREFIX}${clusterId}`;
/** The key of the cluster's address on the network driver (the cluster, not a member, holds it). */
export const clusterAddressKey = (clusterId: string) => `cluster-${clusterId}`;

/**
 * A connect check a quarter second apart: a member joins at the first
 * connect its port accepts (it binds only once ready, SPEC rule 3) and
 * leaves after two refused in a row, so a dead member is out within half a
 * second; the connects in between are retried on another member by the
 * balancer.
 */
export const MEMBER_CHECK: HealthCheckSpec = { kind: 'connect', intervalMs: 250, fall: 2, rise: 1 };

/**
 * HTTP, by Host: the cluster's address (a client that calls it by address)
 * and its dnsName (what the edge's HTTP listener forwards), and any other
 * name: the address is the cluster's alone, so every request that reaches
 * it is the cluster's, under whatever name the client used (a gateway route
 * forwards the client's Host as it came, a proxy host moved from the
 * instance the cluster was made from its own). HTTP rather than TCP so the
 * balancer can send a request again, on another member, when the member it
 * went to died before answering.
 */
export function clusterListener(c: Pick<Cluster, 'id' | 'port' | 'dnsName'> & { address: string }): ListenerSpec {
  return { id: clusterListenerId(c.id), address: c.address, port: c.port, protocol: 'http', hosts: [c.address, c.dnsName, ANY_HOST], check: MEMBER_CHECK };
}

/**
 * The dnsName's entry on the edge's HTTP listener: one backend, the
 * cluster's balancer, which spreads the requests over the members. null
 * without an HTTP listener (EDGE_HTTP_PORT=0).
 */
export function dnsListener(c: Pick<Cluster, 'id' | 'port' | 'dnsName'> & { address: string }, http: { host: string; port: number } | null): OneBackendListener | null {
  if (!http) return null;
  return {
    listener: { id: clusterDnsListenerId(c.id), address: http.host, port: http.port, protocol: 'http', hosts: [c.dnsName], check: { kind: 'connect' } },
    backend: { address: c.address, port: c.port },
  };
}

/** Whether the provider holds the listener as `want` (address, port, protocol, names, check). */
export function listenerAsWanted(held: ListenerSpec | undefined, want: ListenerSpec): boolean {
  if (!held) return false;
  const names = (l: ListenerSpec) => [...new Set(l.hosts ?? [])].sort().join(',');
  return held.address === want.address && held.port === want.port && held.protocol === want.protocol && names(held) === names(want) && sameCheck(held.check, want.check);
}

function sameCheck(a: HealthCheckSpec, b: HealthCheckSpec): boolean {
  return a.kind === b.kind && a.path === b.path && a.intervalMs === b.intervalMs && a.fall === b.fall && a.rise === b.rise;
}
