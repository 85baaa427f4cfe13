import { connect, Socket } from 'node:net';
import { Readable } from 'node:stream';
// Node's own HTTP/1 parser (llhttp compiled to C, the one `http` uses),
// reached through the `_http_common` module Node keeps for compatibility.
// It does the response framing: content-length, chunked, HEAD, 1xx, 204/304,
// bodies delimited by the close. Cheaper per response than undici's wasm
// llhttp plus its client machinery, which was ~15% of the edge's CPU.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { HTTPParser } = require('_http_common') as { HTTPParser: HTTPParserClass };

interface HTTPParserClass {
  new (): NativeParser;
  RESPONSE: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
}
interface NativeParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | Error;
  finish(): undefined | Error;
  close(): void;
  [callback: number]: unknown;
}

/** Why an exchange failed; the router answers 504 for the timeouts and 502 for the rest. */
export type UpstreamFailure = 'connect_timeout' | 'response_timeout' | 'connect_failed' | 'closed' | 'protocol_error';

/** The running exchange, for the side that gives up on it (the client went away). */
export interface Exchange {
  abort(): void;
}

/** Receives one upstream response. Calls come in order: head, body*, end; or failed at any point. */
export interface ResponseSink {
  /** The final response head (1xx responses are not passed on); raw [name, value, ...] pairs. */
  head(status: number, rawHeaders: string[], exchange: Exchange): void;
  /** A piece of the (de-chunked) body; false asks to pause until `resume` is called. */
  body(chunk: Buffer, resume: () => void): boolean;
  end(): void;
  /** `afterHead`: the head was already passed on, so only the connection to the client can be dropped. */
  failed(reason: UpstreamFailure, afterHead: boolean): void;
}

export interface UpstreamRequest {
  method: string;
  /** The complete request head, ending with the blank line (latin1). */
  head: string;
  /** The request body to stream after the head, or null. */
  body: Readable | null;
  /** Send the body with chunked framing (the client's body had no content-length). */
  chunked: boolean;
}

export interface PoolOptions {
  connectTimeoutMs: number;
  /** Longest silence from the instance while a response is due (head or body). */
  responseTimeoutMs: number;
  /** How long an idle connection is reused when the instance gives no `Keep-Alive: timeout` hint. */
  idleTimeoutMs: number;
  /** Upper bound for idle reuse whatever the hint says. */
  maxIdleTimeoutMs: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  connectTimeoutMs: 5_000,
  responseTimeoutMs: 30_000,
  idleTimeoutMs: 4_000,
  maxIdleTimeoutMs: 30_000,
};

/** Methods a request may be repeated with (RFC 9110 9.2.2) when a reused connection turns out closed. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/**
 * Kept-alive HTTP/1.1 connections to one instance address. One request per
 * connection at a time (no pipelining to an arbitrary instance); idle
 * connections are reused last-in first-out, so a few warm ones carry the
 * load and the rest time out.
 */
export class UpstreamPool {
  private readonly idle: UpstreamConnection[] = [];
  private closed = false;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly options: PoolOptions = DEFAULT_POOL_OPTIONS,
  ) {}

  /**
   * Sends one request; the response (or the failure) goes to `sink`. The
   * returned exchange stops it whenever the client goes away, on whichever
   * connection it runs by then.
   */
  request(req: UpstreamRequest, sink: ResponseSink): Exchange {
    const now = Date.now();
    let conn = this.idle.pop();
    while (conn && (conn.idleUntil < now || conn.socket.destroyed)) {
      conn.socket.destroy();
      conn = this.idle.pop();
    }
    let current = conn ?? this.open();
    // A reused connection may have been closed by the instance just now (its
    // FIN not yet read): a request that can be repeated gets a second try on
    // a new connection when no byte of the answer came back.
    const retry =
      conn && req.body === null && IDEMPOTENT.has(req.method)
        ? () => {
            current = this.open();
            current.send(req, sink, null);
          }
        : null;
    current.send(req, sink, retry);
    // Only while this exchange runs: once it ended, its connection may carry another.
    return { abort: () => current.abortFor(sink) };
  }

  /** Connections open right now (idle ones included); for tests. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Closes the idle connections now and the busy ones when their exchange ends. */
  close(): void {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.socket.destroy();
  }

  /** @internal A connection that finished an exchange and may be reused. */
  release(conn: UpstreamConnection): void {
    if (this.closed) conn.socket.destroy();
    else this.idle.push(conn);
  }

  /** @internal A connection that closed: not to be handed out again. */
  forget(conn: UpstreamConnection): void {
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
  }

  private open(): UpstreamConnection {
    return new UpstreamConnection(this);
  }
}

/**
 * One socket to the instance and the parser reading its responses. The
 * socket timeout doubles as the idle reaper: while an exchange runs it is
 * the response timeout, while idle it closes the connection.
 */
class UpstreamConnection implements Exchange {
  readonly socket: Socket;
  idleUntil = 0;
  private readonly parser: NativeParser;
  private sink: ResponseSink | null = null;
  private retry: (() => void) | null = null;
  private method = '';
  private connected = false;
  private headSent = false;
  private answered = false;
  private informational = false;
  private keepAlive = false;
  private requestDone = false;
  private pendingHeaders: string[] = [];
  private body: Readable | null = null;

  constructor(private readonly pool: UpstreamPool) {
    this.socket = connect({ host: pool.host, port: pool.port, noDelay: true });
    this.socket.setTimeout(pool.options.connectTimeoutMs);
    this.parser = new HTTPParser();
    this.parser.initialize(HTTPParser.RESPONSE, {}, 0, 0);
    this.parser[HTTPParser.kOnHeaders] = (headers: string[]) => this.pendingHeaders.push(...headers);
    this.parser[HTTPParser.kOnHeadersComplete] = (
      _major: number,
      _minor: number,
      headers: string[] | undefined,
      _method: unknown,
      _url: unknown,
      status: number,
      _message: string,
      _upgrade: boolean,
      keepAlive: boolean,
    ) => this.onHead(status, headers, keepAlive);
    this.parser[HTTPParser.kOnBody] = (chunk: Buffer) => this.onBody(chunk);
    this.parser[HTTPParser.kOnMessageComplete] = () => this.onComplete();
    this.socket.once('connect', () => {
      this.connected = true;
      this.socket.setTimeout(pool.options.responseTimeoutMs);
    });
    this.socket.on('data', (data: Buffer) => this.onData(data));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', () => this.lost(this.connected ? 'closed' : 'connect_failed'));
    this.socket.on('close', () => this.onClose());
    this.socket.on('timeout', () => this.onTimeout());
  }

  send(req: UpstreamRequest, sink: ResponseSink, retry: (() => void) | null): void {
    this.sink = sink;
    this.retry = retry;
    this.method = req.method;
    this.answered = false;
    this.headSent = false;
    this.requestDone = req.body === null;
    this.socket.write(req.head, 'latin1');
    if (req.body) this.streamBody(req.body, req.chunked);
  }

  private streamBody(body: Readable, chunked: boolean): void {
    this.body = body;
    const socket = this.socket;
    const resume = () => body.resume();
    body.on('data', (chunk: Buffer) => {
      if (this.body !== body) return;
      let ok: boolean;
      if (chunked) {
        socket.cork();
        socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
        socket.write(chunk);
        ok = socket.write('\r\n', 'latin1');
        socket.uncork();
      } else {
        ok = socket.write(chunk);
      }
      if (!ok) {
        body.pause();
        socket.once('drain', resume);
      }
    });
    body.once('end', () => {
      if (this.body !== body) return;
      if (chunked) socket.write('0\r\n\r\n', 'latin1');
      this.requestDone = true;
      this.body = null;
    });
  }

  private onData(data: Buffer): void {
    if (!this.sink) {
      // Bytes nobody asked for: the connection is out of step; drop it.
      this.socket.destroy();
      return;
    }
    this.answered = true;
    const parsed = this.parser.execute(data);
    if (typeof parsed !== 'number') this.lost('protocol_error');
  }

  private onHead(status: number, headers: string[] | undefined, keepAlive: boolean): number {
    const sink = this.sink;
    const raw = headers ?? this.pendingHeaders;
    this.pendingHeaders = [];
    if (!sink) {
      // A response nobody asked for: the connection is out of step.
      this.close();
      return 1;
    }
    if (status < 200) {
      // 100 Continue, 102, 103 Early Hints: the final response follows on the
      // same connection. 101 would switch protocols, which the edge does not
      // forward (Upgrade is hop-by-hop and dropped).
      if (status === 101) {
        this.lost('protocol_error');
        return 1;
      }
      this.informational = true;
      return 1;
    }
    this.keepAlive = keepAlive;
    this.idleUntil = Date.now() + this.idleTimeout(raw);
    this.headSent = true;
    sink.head(status, raw, this);
    // A response to HEAD announces a length but carries no body.
    return this.method === 'HEAD' ? 1 : 0;
  }

  /** Drops the exchange and its connection without telling the sink. */
  abort(): void {
    this.abortFor(this.sink);
  }

  /** As abort(), if the running exchange is still the one answering `sink`. */
  abortFor(sink: ResponseSink | null): void {
    if (!this.sink || this.sink !== sink) return;
    this.sink = null;
    this.retry = null;
    this.body = null;
    this.close();
  }

  private onBody(chunk: Buffer): void {
    const sink = this.sink;
    if (sink && !sink.body(chunk, () => this.resumeReading())) {
      // Waiting on a slow client is not the instance's silence: no response timeout meanwhile.
      this.socket.pause();
      this.socket.setTimeout(0);
    }
  }

  private resumeReading(): void {
    this.socket.setTimeout(this.pool.options.responseTimeoutMs);
    this.socket.resume();
  }

  private onComplete(): void {
    if (this.informational) {
      this.informational = false;
      return;
    }
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    this.retry = null;
    this.body = null;
    sink.end();
    // Reused only when both directions are complete: a response that came
    // before the whole request body was sent leaves the connection mid-request.
    if (this.keepAlive && this.requestDone && !this.socket.destroyed) this.pool.release(this);
    else this.close();
  }

  private onEnd(): void {
    // A body delimited by the close ends here (finish() completes it).
    if (this.sink && this.headSent) this.parser.finish();
    if (this.sink) this.lost('closed');
    this.close();
  }

  private onTimeout(): void {
    if (!this.sink) return this.close();
    this.lost(this.connected ? 'response_timeout' : 'connect_timeout');
  }

  private onClose(): void {
    if (this.sink) this.lost('closed');
    this.pool.forget(this);
    // Not from inside a parser callback: 'close' is always emitted on a later tick.
    this.parser.close();
  }

  /** The exchange cannot complete on this connection: retry it once, or report it. */
  private lost(reason: UpstreamFailure): void {
    const sink = this.sink;
    const retry = this.retry;
    this.sink = null;
    this.retry = null;
    this.body = null;
    this.close();
    if (!sink) return;
    if (retry && !this.answered && (reason === 'closed' || reason === 'connect_failed')) retry();
    else sink.failed(reason, this.headSent);
  }

  private close(): void {
    this.pool.forget(this);
    this.socket.destroy();
  }

  /** From `Keep-Alive: timeout=N`, a second early so we never send into the instance's own close; else the default. */
  private idleTimeout(raw: string[]): number {
    const { idleTimeoutMs, maxIdleTimeoutMs } = this.pool.options;
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i].length !== 10 || raw[i].toLowerCase() !== 'keep-alive') continue;
      const m = /timeout\s*=\s*(\d+)/i.exec(raw[i + 1]);
      if (m) return Math.max(0, Math.min(Number(m[1]) * 1000 - 1000, maxIdleTimeoutMs));
    }
    return idleTimeoutMs;
  }
}
