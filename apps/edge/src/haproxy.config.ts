import { isIP } from 'node:net';
import { HostSpec } from './edge.types';

/** Where the edge's HAProxy keeps its files (all under one directory of the data dir). */
export interface HaproxyFiles {
  config: string;
  /** hostname → `ip/port`, what the runtime API edits in place. */
  map: string;
  lua: string;
  /** The runtime API (admin level, mode 600). */
  socket: string;
}

export interface HaproxySettings {
  bind: { host: string; port: number };
  threads: number;
  files: HaproxyFiles;
  /** Started as root: the unprivileged ids HAProxy drops to once its listener and socket exist. */
  runAs?: { uid: number; gid: number } | null;
}

/**
 * The `global` section the gateway's and the load balancers' HAProxy share:
 * threads, the runtime socket (the only way routes and backends change),
 * and the unprivileged user it drops to.
 */
export function tcpProxyGlobal(threads: number, socket: string, runAs?: { uid: number; gid: number } | null): string {
  return `# Written by the Stratus edge at each start; do not edit.
global
  nbthread ${threads}
  stats socket ${socket} mode 600 level admin
${runAs ? `  uid ${runAs.uid}\n  gid ${runAs.gid}\n` : ''}`;
}

/**
 * Timeouts of TCP proxying that carries database and other long-lived
 * connections, for a `defaults` section (the gateway's and the load
 * balancers' alike).
 */
export const LONG_LIVED_TCP = `  # No idle timeout (24 days is HAProxy's longest): an idle database connection through a
  # route stays open. A peer that vanished without a FIN is found by TCP keep-alive instead,
  # after 60 s of silence and 10 unanswered probes a second apart, on both sides.
  timeout client 24d
  timeout server 24d
  option clitcpka
  clitcpka-idle 60s
  clitcpka-intvl 1s
  clitcpka-cnt 10
  option srvtcpka
  srvtcpka-idle 60s
  srvtcpka-intvl 1s
  srvtcpka-cnt 10
`;

/** A JSON error envelope as an HAProxy log-format string; `%[var(txn.host),json(utf8s)]` puts the host in safely. */
function envelope(code: string, message: string): string {
  return JSON.stringify(JSON.stringify({ error: { code, message } })).replace('__HOST__', '%[var(txn.host),json(utf8s)]');
}

/** HTTP/1 hop-by-hop headers HAProxy itself leaves in place (it handles Connection and Transfer-Encoding). */
const HOP_BY_HOP_REQUEST = ['keep-alive', 'proxy-connection', 'te', 'trailer', 'proxy-authorization'];
const HOP_BY_HOP_RESPONSE = ['keep-alive', 'proxy-connection', 'trailer', 'proxy-authenticate'];

/**
 * The edge's HTTP listener for proxy hosts, as HAProxy configuration. One
 * frontend routes by Host: the name (lower case, without port or trailing
 * dot) is looked up in the map, and the request goes to that instance
 * address and port (`set-dst` with a `0.0.0.0` server: one backend serves
 * every instance, and HAProxy's idle-connection reuse is keyed by the
 * destination, so connections are pooled per instance). The map changes
 * through the runtime API, without a reload.
 *
 * Answers of the edge itself are the API's error envelope: 400 without a
 * Host, 404 for an unknown name, 502 when the instance does not answer
 * (HAProxy says 503 when it cannot connect; turned into 502 unless the
 * instance itself said 503), 504 when it stops answering mid-response.
 */
export function renderHaproxyConfig({ bind, threads, files, runAs }: HaproxySettings): string {
  const json = 'content-type "application/json; charset=utf-8"';
  const notAnswering = envelope('bad_gateway', 'the instance behind __HOST__ did not answer');
  return `# Written by the Stratus edge at each start; do not edit.
global
  nbthread ${threads}
  # maxconn: HAProxy's own, from the file descriptor limit.
  stats socket ${files.socket} mode 600 level admin
  lua-load ${files.lua}
${runAs ? `  uid ${runAs.uid}\n  gid ${runAs.gid}\n` : ''}
defaults
  mode http
  timeout connect 5s
  timeout http-request 60s
  timeout http-keep-alive 65s
  timeout client 65s
  # Longest silence from the instance while a response is due.
  timeout server 30s
  # Upgraded connections (WebSocket) have no idle timeout: TCP keep-alive finds a vanished peer.
  timeout tunnel 24d
  option clitcpka
  option srvtcpka
  # One retry, on a fresh connection, for a kept-alive connection the instance had just closed
  # (no answer at all). A refused connection is not retried: HAProxy would wait a second first.
  retries 1
  retry-on empty-response

frontend proxy_hosts
  bind ${bind.host}:${bind.port}
  http-request return status 400 ${json} lf-string ${envelope('bad_request', 'the request has no Host header')} unless { req.hdr(host) -m found }
  http-request set-var(txn.host) req.hdr(host),field(1,:),lower,regsub(\\.$,)
  http-request set-var(txn.target) var(txn.host),map(${files.map})
  http-request return status 404 ${json} lf-string ${envelope('not_found', 'no proxy host __HOST__')} unless { var(txn.target) -m found }
  http-request set-dst var(txn.target),field(1,/)
  http-request set-dst-port var(txn.target),field(2,/)
  default_backend instances

backend instances
  http-reuse always
  option forwardfor
${HOP_BY_HOP_REQUEST.map((h) => `  http-request del-header ${h}`).join('\n')}
  # Headers the Connection header names are hop-by-hop too (RFC 9110 7.6.1).
  acl listed_request req.hdr(connection) -m reg -i ^(?!(keep-alive|close|upgrade)$)
  http-request lua.drop_listed_request if listed_request
  # After the drops: a client's Connection header must not be able to remove what the edge sets.
  http-request set-header x-forwarded-proto http
  http-request set-header x-forwarded-host %[req.hdr(host)]
  http-response set-var(txn.answered) bool(true)
${HOP_BY_HOP_RESPONSE.map((h) => `  http-response del-header ${h}`).join('\n')}
  acl listed_response res.hdr(connection) -m reg -i ^(?!(keep-alive|close|upgrade)$)
  http-response lua.drop_listed_response if listed_response
  http-error status 502 ${json} lf-string ${notAnswering}
  http-error status 503 ${json} lf-string ${notAnswering}
  http-error status 504 ${json} lf-string ${envelope('gateway_timeout', 'the instance behind __HOST__ did not answer')}
  http-after-response set-status 502 if { status 503 } !{ var(txn.answered) -m bool }
  server instance 0.0.0.0:0
`;
}

/**
 * Drops the headers a Connection header names, and Connection itself unless
 * it asks for an upgrade (HAProxy frames the connection on each side).
 */
export const HAPROXY_LUA = `-- Written by the Stratus edge at each start; do not edit.
local STANDARD = { ["keep-alive"] = true, ["close"] = true, ["upgrade"] = true }

local function drop_listed(headers, del, set)
  local upgrade = false
  for _, value in pairs(headers["connection"] or {}) do
    for token in string.gmatch(value, "[^,%s]+") do
      local name = string.lower(token)
      if name == "upgrade" then upgrade = true end
      if not STANDARD[name] then del(name) end
    end
  end
  del("connection")
  if upgrade then set("connection", "upgrade") end
end

core.register_action("drop_listed_request", { "http-req" }, function(txn)
  drop_listed(txn.http:req_get_headers(),
    function(name) txn.http:req_del_header(name) end,
    function(name, value) txn.http:req_set_header(name, value) end)
end)

core.register_action("drop_listed_response", { "http-res" }, function(txn)
  drop_listed(txn.http:res_get_headers(),
    function(name) txn.http:res_del_header(name) end,
    function(name, value) txn.http:res_set_header(name, value) end)
end)
`;

/**
 * The map's lines: one per proxy host, sorted so that an unchanged set
 * renders the same. Only well-formed targets: `set-dst` with something that
 * is not an address does nothing, and the request would go to the edge's
 * own address at that port.
 */
export function renderHostMap(hosts: HostSpec[]): string[] {
  return hosts
    .filter((h) => isIP(h.ip) !== 0 && Number.isInteger(h.port) && h.port > 0 && h.port < 65536 && /^[a-z0-9.-]+$/.test(h.hostname))
    .map((h) => `${h.hostname} ${h.ip}/${h.port}`)
    .sort();
}
