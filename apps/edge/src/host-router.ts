import { createServer, IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import { connect, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { HostSpec } from './edge.messages';
import { KEEPALIVE } from './keepalive';
import { Exchange, ResponseSink, UpstreamFailure, UpstreamPool } from './upstream.pool';

/** Headers that belong to one connection, never forwarded (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/**
 * The HTTP listener for proxy hosts: routes each request by its Host header
 * to the instance's address and port, over a pool of kept-alive upstream
 * connections per target. Unknown host: 404; instance not answering: 502;
 * both in the API's error envelope. Upgrade requests (WebSocket, h2c) get a
 * connection of their own to the instance, which becomes a byte tunnel once
 * the request head is forwarded.
 */
export class HostRouter {
  private server: Server | null = null;
  private bound: { host: string; port: number } | null = null;
  private state: string | null = null;
  private hosts = new Map<string, UpstreamPool>();
  /** Open upgrade tunnels by the pool of their instance, so they close with it. */
  private readonly tunnels = new Map<UpstreamPool, Set<Socket>>();

  /** Binds (or rebinds) the listener; returns 'ok' or the bind error. */
  async listen(where: { host: string; port: number } | null): Promise<string | null> {
    if (!where) return null;
    if (this.server && this.bound?.host === where.host && this.bound.port === where.port && this.state === 'ok') return this.state;
    if (this.server) this.server.close();
    const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => this.handle(req, res));
    server.headersTimeout = 60_000;
    server.on('upgrade', (req: IncomingMessage, client: Duplex, early: Buffer) => this.tunnel(req, client as Socket, early));
    this.server = server;
    this.bound = where;
    this.state = await new Promise<string>((resolve) => {
      server.once('error', (err: NodeJS.ErrnoException) => resolve(`${err.code ?? 'error'}: ${err.message}`));
      server.listen({ host: where.host, port: where.port, backlog: 2048 }, () => resolve('ok'));
    });
    return this.state;
  }

  setHosts(hosts: HostSpec[]): void {
    // One pool per instance address and port, shared by the names that lead there.
    const byTarget = new Map<string, UpstreamPool>();
    for (const pool of this.hosts.values()) byTarget.set(`${pool.host} ${pool.port}`, pool);
    const next = new Map<string, UpstreamPool>();
    const live = new Set<UpstreamPool>();
    for (const h of hosts) {
      const key = `${h.ip} ${h.port}`;
      let pool = byTarget.get(key);
      if (!pool) byTarget.set(key, (pool = new UpstreamPool(h.ip, h.port)));
      next.set(h.hostname, pool);
      live.add(pool);
    }
    this.hosts = next;
    for (const pool of byTarget.values()) if (!live.has(pool)) this.closePool(pool);
  }

  close(): void {
    this.server?.close();
    for (const pool of this.hosts.values()) this.closePool(pool);
  }

  private closePool(pool: UpstreamPool): void {
    pool.close();
    for (const socket of this.tunnels.get(pool) ?? []) socket.destroy();
    this.tunnels.delete(pool);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // One pass over the raw header list: the forwarded head and the few
    // headers routing needs, without building `req.headers` (an object Node
    // only makes when asked for).
    const f = forwardHead(req);
    if (f.host === null) return fail(res, 400, 'bad_request', 'the request has no Host header');
    const pool = this.hosts.get(f.host);
    if (!pool) return fail(res, 404, 'not_found', `no proxy host ${f.host}`);
    const exchange = pool.request({ method: req.method ?? 'GET', head: f.head, body: f.hasBody ? req : null, chunked: f.chunked }, new ResponseRelay(res, f.host));
    // The client may leave mid-upload or mid-download: the instance's side
    // of the exchange ends then too, rather than at the response timeout.
    res.once('close', () => {
      if (!res.writableFinished) exchange.abort();
    });
  }

  /**
   * An upgrade request: its head goes to the instance on a new connection
   * (with its Upgrade header and `Connection: upgrade`), then bytes flow both
   * ways as they are, the instance's answer (101 or not) included. The
   * tunnel ends when either side closes it or the proxy host goes.
   */
  private tunnel(req: IncomingMessage, client: Socket, early: Buffer): void {
    const f = forwardHead(req, true);
    if (f.host === null) return failRaw(client, 400, 'bad_request', 'the request has no Host header');
    const pool = this.hosts.get(f.host);
    if (!pool) return failRaw(client, 404, 'not_found', `no proxy host ${f.host}`);
    const upstream = connect({ host: pool.host, port: pool.port, noDelay: true, timeout: pool.options.connectTimeoutMs, ...KEEPALIVE });
    client.setKeepAlive(true, KEEPALIVE.keepAliveInitialDelay);
    const open = this.tunnels.get(pool) ?? new Set<Socket>();
    this.tunnels.set(pool, open.add(client));
    let connected = false;
    const failed = () => {
      if (connected || client.destroyed) client.destroy();
      else failRaw(client, 502, 'bad_gateway', `the instance behind ${f.host} did not answer`);
      upstream.destroy();
    };
    upstream.once('timeout', failed);
    upstream.once('error', failed);
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      upstream.write(f.head);
      if (early.length > 0) upstream.write(early);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    client.on('error', () => upstream.destroy());
    client.once('close', () => {
      open.delete(client);
      upstream.destroy();
    });
    upstream.once('close', () => client.destroy());
  }
}

const CONNECTION_OPTIONS_ONLY = /^\s*(keep-alive|close)\s*$/i;

/** Responses up to this size are sent in one write (headers and body together). */
const BUFFER_LIMIT = 64 * 1024;

/**
 * Relays one upstream response to the client. A small response with a
 * content-length is collected and written at once, so it leaves as one
 * packet; larger ones stream with backpressure.
 */
class ResponseRelay implements ResponseSink {
  private status = 0;
  private headers: string[] = [];
  private chunks: Buffer[] | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly name: string,
  ) {}

  head(status: number, raw: string[], exchange: Exchange): void {
    if (this.res.destroyed) return exchange.abort();
    this.status = status;
    let length = -1;
    let connection: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i];
      const lower = key.toLowerCase();
      if (HOP_BY_HOP.has(lower)) {
        if (lower === 'connection') connection = connection === undefined ? raw[i + 1] : `${connection}, ${raw[i + 1]}`;
        continue;
      }
      if (lower === 'content-length') length = Number(raw[i + 1]);
      this.headers.push(key, raw[i + 1]);
    }
    // `Connection: keep-alive` or `close` (the usual ones) name no header to drop.
    if (connection !== undefined && !CONNECTION_OPTIONS_ONLY.test(connection)) dropListed(this.headers, connection);
    if (length >= 0 && length <= BUFFER_LIMIT) {
      this.chunks = [];
      return;
    }
    if (!this.writeHead()) return exchange.abort();
  }

  body(chunk: Buffer, resume: () => void): boolean {
    if (this.chunks) {
      this.chunks.push(chunk);
      return true;
    }
    if (this.res.write(chunk)) return true;
    this.res.once('drain', resume);
    return false;
  }

  end(): void {
    if (!this.chunks) {
      this.res.end();
      return;
    }
    if (!this.writeHead()) return;
    this.res.end(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks));
  }

  failed(reason: UpstreamFailure): void {
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    const timeout = reason === 'connect_timeout' || reason === 'response_timeout';
    fail(this.res, timeout ? 504 : 502, timeout ? 'gateway_timeout' : 'bad_gateway', `the instance behind ${this.name} did not answer`);
  }

  /** Node refuses header values it considers invalid (the instance's parser may have been laxer): 502 then. */
  private writeHead(): boolean {
    try {
      this.res.writeHead(this.status, this.headers);
      return true;
    } catch {
      this.chunks = null;
      fail(this.res, 502, 'bad_gateway', `the instance behind ${this.name} sent an invalid response header`);
      return false;
    }
  }
}

/** Lower-case host without port or trailing dot; null when missing. */
export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  let h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1) || null;
  const colon = h.indexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h || null;
}

interface Forward {
  /** Routing name (see hostOf), null when the request has no Host header. */
  host: string | null;
  /** The request head for the instance: request line, end-to-end headers and x-forwarded-*, blank line. */
  head: string;
  hasBody: boolean;
  /** The body comes without a content-length: it goes on with chunked framing. */
  chunked: boolean;
}

/**
 * The request head to forward, built from `req.rawHeaders` in one pass:
 * hop-by-hop headers and those named in Connection are dropped,
 * x-forwarded-for gets the peer appended, x-forwarded-proto/-host are set
 * (client values replaced). Names and values come from Node's parser, which
 * has refused CR, LF and NUL in them, so they are written as they are.
 */
function forwardHead(req: IncomingMessage, upgrade = false): Forward {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let host: string | undefined;
  let protocols: string | undefined;
  let prior: string | undefined;
  let connection: string | undefined;
  let contentLength: string | undefined;
  let chunked = false;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    const lower = key.toLowerCase();
    switch (lower) {
      case 'host':
        if (host === undefined) host = raw[i + 1];
        break;
      case 'content-length':
        contentLength = raw[i + 1];
        break;
      case 'transfer-encoding':
        chunked = true;
        continue;
      case 'connection':
        connection = connection === undefined ? raw[i + 1] : `${connection}, ${raw[i + 1]}`;
        continue;
      case 'x-forwarded-for':
        prior = prior === undefined ? raw[i + 1] : `${prior}, ${raw[i + 1]}`;
        continue;
      case 'x-forwarded-proto':
      case 'x-forwarded-host':
        continue;
      case 'upgrade':
        // Hop-by-hop, but an upgrade asks the instance for it.
        if (upgrade) protocols = protocols === undefined ? raw[i + 1] : `${protocols}, ${raw[i + 1]}`;
        continue;
      case 'expect':
        // Node's server has already answered 100-continue to the client; the
        // body follows without waiting, so the instance must not hold it back.
        continue;
      default:
        if (HOP_BY_HOP.has(lower)) continue;
    }
    headers.push(key, raw[i + 1]);
  }
  if (connection !== undefined) dropListed(headers, connection);
  const hasBody = contentLength !== undefined ? contentLength !== '0' : chunked;
  const bodyChunked = hasBody && contentLength === undefined;
  let head = `${req.method} ${req.url} HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  const peer = req.socket.remoteAddress ?? '';
  head += `x-forwarded-for: ${prior ? `${prior}, ${peer}` : peer}\r\nx-forwarded-proto: http\r\n`;
  if (host !== undefined) head += `x-forwarded-host: ${host}\r\n`;
  if (bodyChunked) head += 'transfer-encoding: chunked\r\n';
  if (protocols !== undefined) head += `upgrade: ${protocols}\r\nconnection: upgrade\r\n`;
  return { host: hostOf(host), head: head + '\r\n', hasBody, chunked: bodyChunked };
}

/** Removes the headers a Connection header names (RFC 9110 7.6.1). */
function dropListed(headers: string[], connection: string): void {
  const listed = connection.toLowerCase().split(',').map((s) => s.trim());
  for (let i = headers.length - 2; i >= 0; i -= 2) {
    if (listed.includes(headers[i].toLowerCase())) headers.splice(i, 2);
  }
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  const body = errorBody(code, message);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The same answer on a socket Node's server has handed over (an upgrade request), then the end of it. */
function failRaw(socket: Socket, status: number, code: string, message: string): void {
  const body = errorBody(code, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}
