import { LONG_LIVED_TCP, tcpProxyGlobal } from './haproxy.config';

/** The gateway HAProxy's names for a port's parts, used in its configuration and in runtime commands alike. */
export const gatewayNames = (port: number) => ({
  plain: `p${port}`,
  tls: `t${port}`,
  backend: `r${port}`,
  server: `r${port}/target`,
});

export interface GatewaySettings {
  /** The gateway host's address the listeners bind to. */
  host: string;
  /** The ports HAProxy holds: every port of the range nothing else had bound. */
  ports: number[];
  threads: number;
  socket: string;
  /** Each port's certificate file (a placeholder until a TLS route's certificate replaces it over the runtime API). */
  certFile: (port: number) => string;
  /** Map file of each port's route id (`-` for none), kept current over the runtime API. */
  routesMap: string;
  /** Map file of each port's certificate, as the SHA-1 of the leaf HAProxy presents (`-` for a plain route or none). */
  certsMap: string;
  runAs?: { uid: number; gid: number } | null;
}

/**
 * The gateway's TCP routes as HAProxy configuration. Every port of the
 * range gets, once and for all, a plain frontend, a TLS frontend on the
 * same address (both bound with SO_REUSEPORT, HAProxy's default) and a
 * backend with one server. Routes come and go through the runtime API only
 * (gateway-router.ts): a port without a route has both frontends paused,
 * which refuses connections while HAProxy keeps the port; a route sets the
 * server's address and resumes one frontend. No reload ever cuts a route.
 *
 * The server starts in maintenance, at an address nobody listens on: a
 * connection accepted before the router pauses the unused ports (the first
 * moments after a start) is closed, never sent anywhere.
 *
 * A client that verified one route's certificate is never handed to the
 * next route's target (pausing a frontend and cutting its server's
 * sessions leave a connection in its handshake alone). Once the handshake
 * is done, a TLS connection is dropped unless the certificate it was shown
 * is still its port's, and its port's route is still the one it noted when
 * it was accepted. The certificate is the check that always holds: the
 * accept-time rules run on the thread the connection was handed to, which
 * a loaded machine can hold back until after the route changed.
 */
export function renderGatewayConfig({ host, ports, threads, socket, certFile, routesMap, certsMap, runAs }: GatewaySettings): string {
  const sections = ports.map((port) => {
    const n = gatewayNames(port);
    return `frontend ${n.plain}
  bind ${host}:${port}
  default_backend ${n.backend}
frontend ${n.tls}
  bind ${host}:${port} ssl crt ${certFile(port)}
  tcp-request connection set-var(sess.route) dst_port,map(${routesMap},-)
  tcp-request session set-var(sess.now) dst_port,map(${routesMap},-)
  tcp-request session set-var(sess.cert) dst_port,map(${certsMap},-)
  tcp-request session reject unless { ssl_f_sha1,hex,strcmp(sess.cert) eq 0 } { var(sess.route),strcmp(sess.now) eq 0 }
  default_backend ${n.backend}
backend ${n.backend}
  server target 127.0.0.1:1 disabled
`;
  });
  return `${tcpProxyGlobal(threads, socket, runAs)}
defaults
  mode tcp
  timeout connect 5s
${LONG_LIVED_TCP}  # One attempt, as a client connecting directly would make: a refused target closes the client's connection.
  retries 0

${sections.join('')}`;
}
