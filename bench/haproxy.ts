/** The benches' HAProxy configuration: its global and default settings with `threads` threads, then `sections`. */
export function haproxyConfig(threads: number, sections: string): string {
  return `global
  maxconn 4096
  nbthread ${threads}
defaults
  timeout connect 5s
  timeout client 60s
  timeout server 60s
${sections}`;
}

/** HAProxy's equivalent of a gateway route: `mode tcp` from 127.0.0.1:`port` to `target` (host:port). */
export function haproxyTcpRoute(port: number, target: string): string {
  return `frontend tcp_in
  mode tcp
  bind 127.0.0.1:${port}
  default_backend tcp_out
backend tcp_out
  mode tcp
  server s1 ${target}
`;
}
