import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { HostSpec } from './edge.messages';

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

const UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * The HTTP listener for proxy hosts: routes each request by its Host header
 * to the instance's address and port, over a pool of kept-alive upstream
 * connections per target. Unknown host: 404; instance not answering: 502;
 * both in the API's error envelope.
 */
export class HostRouter {
  private server: Server | null = null;
  private bound: { host: string; port: number } | null = null;
  private state: string | null = null;
  private hosts = new Map<string, { origin: string; hostHeader: string }>();
  private readonly pools = new Map<string, Pool>();

  /** Binds (or rebinds) the listener; returns 'ok' or the bind error. */
  async listen(where: { host: string; port: number } | null): Promise<string | null> {
    if (!where) return null;
    if (this.server && this.bound?.host === where.host && this.bound.port === where.port && this.state === 'ok') return this.state;
    if (this.server) this.server.close();
    const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => this.handle(req, res));
    server.headersTimeout = 60_000;
    this.server = server;
    this.bound = where;
    this.state = await new Promise<string>((resolve) => {
      server.once('error', (err: NodeJS.ErrnoException) => resolve(`${err.code ?? 'error'}: ${err.message}`));
      server.listen({ host: where.host, port: where.port, backlog: 2048 }, () => resolve('ok'));
    });
    return this.state;
  }

  setHosts(hosts: HostSpec[]): void {
    const next = new Map<string, { origin: string; hostHeader: string }>();
    for (const h of hosts) {
      const addr = h.ip.includes(':') ? `[${h.ip}]` : h.ip;
      next.set(h.hostname, { origin: `http://${addr}:${h.port}`, hostHeader: h.hostname });
    }
    this.hosts = next;
    const live = new Set([...next.values()].map((t) => t.origin));
    for (const [origin, pool] of this.pools) {
      if (!live.has(origin)) {
        this.pools.delete(origin);
        pool.close().catch(() => undefined);
      }
    }
  }

  close(): void {
    this.server?.close();
    for (const pool of this.pools.values()) pool.destroy().catch(() => undefined);
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        headersTimeout: UPSTREAM_TIMEOUT_MS,
        bodyTimeout: UPSTREAM_TIMEOUT_MS,
        connectTimeout: 5_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // One pass over the raw header list: the forwarded list and the few
    // headers routing needs, without building `req.headers` (an object Node
    // only makes when asked for).
    const f = forwardHeaders(req);
    if (f.host === null) return fail(res, 400, 'bad_request', 'the request has no Host header');
    const target = this.hosts.get(f.host);
    if (!target) return fail(res, 404, 'not_found', `no proxy host ${f.host}`);
    this.pool(target.origin).dispatch(
      { method: req.method as 'GET', path: req.url ?? '/', headers: f.headers, body: f.hasBody ? req : null },
      new ResponseRelay(res, f.host) as unknown as Parameters<Pool['dispatch']>[1],
    );
  }
}

/** Responses up to this size are sent in one write (headers and body together). */
const BUFFER_LIMIT = 64 * 1024;

/**
 * Relays one upstream response with undici's dispatch handler API (no
 * stream objects on the hot path). A small response with a content-length is
 * collected and written at once, so it leaves as one packet; larger ones
 * stream with backpressure.
 */
class ResponseRelay {
  private status = 0;
  private headers: string[] = [];
  private chunks: Buffer[] | null = null;
  private streaming = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly name: string,
  ) {}

  onConnect(): void {}

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    this.status = statusCode;
    let length = -1;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const key = rawHeaders[i].toString('latin1');
      const lower = key.toLowerCase();
      if (HOP_BY_HOP.has(lower)) continue;
      const value = rawHeaders[i + 1].toString('latin1');
      if (lower === 'content-length') length = Number(value);
      this.headers.push(key, value);
    }
    if (length >= 0 && length <= BUFFER_LIMIT) {
      this.chunks = [];
    } else {
      this.streaming = true;
      this.res.writeHead(statusCode, this.headers);
      this.res.on('drain', resume);
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.chunks) {
      this.chunks.push(chunk);
      return true;
    }
    return this.res.write(chunk);
  }

  onComplete(): void {
    if (this.streaming) {
      this.res.end();
      return;
    }
    this.res.writeHead(this.status, this.headers);
    this.res.end(this.chunks!.length === 1 ? this.chunks![0] : Buffer.concat(this.chunks!));
  }

  onError(err: { code?: string }): void {
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    const timeout = err?.code === 'UND_ERR_HEADERS_TIMEOUT' || err?.code === 'UND_ERR_CONNECT_TIMEOUT';
    fail(this.res, timeout ? 504 : 502, timeout ? 'gateway_timeout' : 'bad_gateway', `the instance behind ${this.name} did not answer`);
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
  /** Flat [name, value, ...] list for undici: end-to-end headers and x-forwarded-*. */
  headers: string[];
  hasBody: boolean;
}

/**
 * The request headers to forward, built from `req.rawHeaders` in one pass:
 * hop-by-hop headers and those named in Connection are dropped,
 * x-forwarded-for gets the peer appended, x-forwarded-proto/-host are set
 * (client values replaced).
 */
function forwardHeaders(req: IncomingMessage): Forward {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let host: string | undefined;
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
      case 'expect':
        // Node's server has already answered 100-continue to the client;
        // undici refuses the header (NotSupportedError), which made every
        // upload with Expect (curl does it above 1 MB) a 502.
        continue;
      default:
        if (HOP_BY_HOP.has(lower)) continue;
    }
    headers.push(key, raw[i + 1]);
  }
  if (connection !== undefined) dropListed(headers, connection);
  const peer = req.socket.remoteAddress ?? '';
  headers.push('x-forwarded-for', prior ? `${prior}, ${peer}` : peer, 'x-forwarded-proto', 'http');
  if (host !== undefined) headers.push('x-forwarded-host', host);
  return {
    host: hostOf(host),
    headers,
    hasBody: contentLength !== undefined ? contentLength !== '0' : chunked,
  };
}

/** Removes the headers a Connection header names (RFC 9110 7.6.1). */
function dropListed(headers: string[], connection: string): void {
  const listed = connection.toLowerCase().split(',').map((s) => s.trim());
  for (let i = headers.length - 2; i >= 0; i -= 2) {
    if (listed.includes(headers[i].toLowerCase())) headers.splice(i, 2);
  }
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
