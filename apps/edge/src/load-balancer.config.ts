import { ANY_HOST, HEALTH_CHECK_DEFAULTS, ListenerSpec } from '@stratus/providers';
import { LONG_LIVED_TCP, tcpProxyGlobal } from './haproxy.config';

/** The load-balancer HAProxy's names, used in its configuration and in runtime commands alike. */
export const balancerNames = {
  backend: (listenerId: string) => `l_${listenerId}`,
  /** A backend is its address and port; `_` is in no address, so no two backends share a name. */
  server: (address: string, port: number) => `${address.replace(/[.:]/g, '_')}_${port}`,
};

export interface BalancerSettings {
  address: string;
  port: number;
  /** The listeners on this address and port: one TCP listener, or HTTP listeners told apart by Host. */
  listeners: ListenerSpec[];
  threads: number;
  socket: string;
  runAs?: { uid: number; gid: number } | null;
}

/** A JSON error envelope as an HAProxy `string` argument. */
const envelope = (code: string, message: string) => JSON.stringify(JSON.stringify({ error: { code, message } }));
const JSON_TYPE = 'content-type "application/json; charset=utf-8"';

/**
 * One address and port of the load balancers, as HAProxy configuration: a
 * frontend, and per listener a backend with no servers. Backends (HAProxy's
 * servers) come and go through the runtime API only (load-balancer-router.ts),
 * so a backend added, drained or removed touches no other connection.
 *
 * A connection a backend refuses (it died, and its health checks have not
 * yet taken it out) is tried again on another backend, up to 3 times, so
 * the client never sees the failure. Without persistence HAProxy already
 * picks the next server afresh for a retry; `option redispatch 1` keeps
 * that so for every retry once a listener has persistence (stickiness),
 * rather than retrying a dead backend a second apart.
 *
 * An HTTP listener goes one step further (a cluster's members): a request
 * whose backend closed without a word of answer (it died while the request
 * was on its way) is sent again to another backend, for the methods HTTP
 * calls idempotent only, so a member's death costs no client a request.
 * Not on a server timeout: a request that slow could be sent to every
 * backend in turn.
 */
export function renderBalancerConfig({ address, port, listeners, threads, socket, runAs }: BalancerSettings): string {
  const http = listeners[0]?.protocol === 'http';
  const bind = `${address}:${port}`;
  const names = (l: ListenerSpec) => (l.hosts ?? []).filter((h) => h !== ANY_HOST);
  // Names no listener has go to the one with ANY_HOST (the router lets only one have it), else 404.
  const catchAll = listeners.find((l) => l.hosts?.includes(ANY_HOST));
  const backends = listeners.map((l) => {
    const check = l.check.kind === 'http' ? `  option httpchk\n  http-check send meth GET uri ${l.check.path}${http && names(l)[0] ? ` hdr host ${names(l)[0]}` : ''}\n` : '';
    return `backend ${balancerNames.backend(l.id)}
  balance ${http ? 'roundrobin' : 'leastconn'}
${http ? '  option forwardfor\n' : ''}${check}`;
  });
  const frontend = http
    ? `frontend f
  bind ${bind}
  http-request return status 400 ${JSON_TYPE} string ${envelope('bad_request', 'the request has no Host header')} unless { req.hdr(host) -m found }
  http-request set-var(txn.host) req.hdr(host),field(1,:),lower,regsub(\\.$,)
  http-request disable-l7-retry unless { method GET HEAD OPTIONS PUT DELETE }
${listeners.map((l) => `  use_backend ${balancerNames.backend(l.id)} if { var(txn.host) -m str ${names(l).join(' ') || '-'} }`).join('\n')}
  default_backend ${catchAll ? balancerNames.backend(catchAll.id) : 'unknown_host'}
backend unknown_host
  http-request return status 404 ${JSON_TYPE} string ${envelope('not_found', 'no load balancer serves this host name')}
`
    : `frontend f
  bind ${bind}
  default_backend ${balancerNames.backend(listeners[0].id)}
`;
  return `${tcpProxyGlobal(threads, socket, runAs)}
defaults
  mode ${http ? 'http' : 'tcp'}
  timeout connect 5s
${
  http
    ? `  timeout http-request 60s
  timeout http-keep-alive 65s
  timeout client 65s
  timeout server 60s
  timeout tunnel 24d
  option clitcpka
  option srvtcpka
  http-error status 503 ${JSON_TYPE} string ${envelope('service_unavailable', 'no backend of this load balancer is available')}
  retry-on conn-failure empty-response
`
    : LONG_LIVED_TCP
}  # Retries on connect failure are the balancer's, not the client's: each on another backend.
  retries 3
  option redispatch 1

${frontend}${backends.join('')}`;
}

/**
 * The runtime API's `add server` arguments for a backend of `listener`:
 * checked, as the listener's check says. A check on a port of its own
 * judges a role (HealthCheckSpec.port): the sessions of a backend it marks
 * down are shut, so a demoted primary keeps no client.
 */
export function serverArgs(listener: ListenerSpec, address: string, port: number): string {
  const c = { ...HEALTH_CHECK_DEFAULTS, ...listener.check };
  const role = c.port !== undefined ? ` port ${c.port} on-marked-down shutdown-sessions` : '';
  return `${address}:${port} check inter ${c.intervalMs} fall ${c.fall} rise ${c.rise}${role}`;
}
