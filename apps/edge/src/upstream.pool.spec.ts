import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { DEFAULT_POOL_OPTIONS, Exchange, PoolOptions, ResponseSink, UpstreamFailure, UpstreamPool, UpstreamRequest } from './upstream.pool';

/**
 * The upstream client against hand-written instances on raw sockets, so each
 * framing case (and each way an instance can misbehave) is exactly what the
 * test says it is.
 */

interface Answer {
  status?: number;
  headers: Record<string, string>;
  body: string;
  failed?: UpstreamFailure;
}

/** A raw TCP server; `onData` sees the bytes received up to each blank line (a head, or a chunked body's end) as text. */
async function rawServer(onData: (socket: Socket, text: string, nth: number) => void): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  let nth = 0;
  const server = createServer((socket) => {
    connections++;
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      // One callback per complete head; bodies are left to the test to read from `text`.
      if (!buffered.includes('\r\n\r\n')) return;
      const text = buffered;
      buffered = '';
      onData(socket, text, nth++);
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

function send(pool: UpstreamPool, req: Partial<UpstreamRequest> = {}): Promise<Answer> {
  const method = req.method ?? 'GET';
  const head = req.head ?? `${method} / HTTP/1.1\r\nhost: t\r\n\r\n`;
  return new Promise((resolve) => {
    const answer: Answer = { headers: {}, body: '' };
    const sink: ResponseSink = {
      head(status, raw) {
        answer.status = status;
        for (let i = 0; i < raw.length; i += 2) answer.headers[raw[i].toLowerCase()] = raw[i + 1];
      },
      body(chunk) {
        answer.body += chunk.toString('latin1');
        return true;
      },
      end: () => resolve(answer),
      failed(reason) {
        answer.failed = reason;
        resolve(answer);
      },
    };
    pool.request({ method, head, body: req.body ?? null, chunked: req.chunked ?? false }, sink);
  });
}

describe('UpstreamPool', () => {
  const servers: Server[] = [];
  const pools: UpstreamPool[] = [];
  const make = async (onData: Parameters<typeof rawServer>[0], options?: Partial<PoolOptions>) => {
    const s = await rawServer(onData);
    servers.push(s.server);
    const pool = new UpstreamPool('127.0.0.1', s.port, { ...DEFAULT_POOL_OPTIONS, ...options });
    pools.push(pool);
    return { pool, ...s };
  };

  afterEach(async () => {
    for (const p of pools.splice(0)) p.close();
    for (const s of servers.splice(0)) {
      s.close();
      (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    }
  });

  it('reads a content-length body and reuses the connection for the next request', async () => {
    const { pool, connections } = await make((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello'));
    expect(await send(pool)).toEqual({ status: 200, headers: { 'content-length': '5', 'x-a': '1' }, body: 'hello' });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'hello' });
    expect(connections()).toBe(1);
    expect(pool.idleCount).toBe(1);
  });

  it('de-chunks a chunked body split across packets', async () => {
    const { pool } = await make((s) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
      setTimeout(() => s.write('lo\r\n6\r\n world\r\n0\r\n\r\n'), 10);
    });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'hello world' });
    expect(pool.idleCount).toBe(1);
  });

  it('a response to HEAD has no body even with a content-length, and the connection stays in step', async () => {
    const { pool, connections } = await make((s, text) => {
      if (text.startsWith('HEAD')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
      else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    expect(await send(pool, { method: 'HEAD' })).toEqual({ status: 200, headers: { 'content-length': '1000' }, body: '' });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'ok' });
    expect(connections()).toBe(1);
  });

  it.each([204, 304])('a %i has no body', async (status) => {
    const { pool, connections } = await make((s, _t, nth) => {
      if (nth === 0) s.write(`HTTP/1.1 ${status} X\r\n\r\n`);
      else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    expect(await send(pool)).toMatchObject({ status, body: '' });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'ok' });
    expect(connections()).toBe(1);
  });

  it('skips 1xx responses and relays the final one', async () => {
    const { pool } = await make((s) => s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx'));
    expect(await send(pool)).toEqual({ status: 201, headers: { 'content-length': '1' }, body: 'x' });
  });

  it('a body delimited by the close: all of it, and the connection is not reused', async () => {
    const { pool, connections } = await make((s) => {
      s.write('HTTP/1.1 200 OK\r\n\r\nuntil the ');
      setTimeout(() => s.end('end'), 10);
    });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'until the end' });
    expect(pool.idleCount).toBe(0);
    expect(await send(pool)).toMatchObject({ body: 'until the end' });
    expect(connections()).toBe(2);
  });

  it('Connection: close from the instance: the connection is not reused', async () => {
    const { pool, connections } = await make((s) => s.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'));
    await send(pool);
    await send(pool);
    expect(connections()).toBe(2);
  });

  it('a body cut short by the close is a failure after the head', async () => {
    const { pool } = await make((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    expect(await send(pool)).toMatchObject({ status: 200, failed: 'closed' });
  });

  it('a kept-alive connection the instance closed meanwhile: a GET is repeated on a new connection', async () => {
    // The instance answers the first request, then drops the connection when
    // the next one arrives on it without answering (a keep-alive race).
    const { pool, connections } = await make((s, _t, nth) => {
      if (nth === 1) s.destroy();
      else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    expect(await send(pool)).toMatchObject({ status: 200 });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'ok' });
    expect(connections()).toBe(2);
  });

  it('the same race with a POST: not repeated, reported as closed', async () => {
    const { pool } = await make((s, _t, nth) => {
      if (nth === 1) s.destroy();
      else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    await send(pool);
    expect(await send(pool, { method: 'POST' })).toMatchObject({ failed: 'closed' });
  });

  it('an idle connection the instance closes leaves the pool', async () => {
    const { pool } = await make((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    // Keep-alive by framing, closed right after: the pool must notice.
    await send(pool);
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.idleCount).toBe(0);
  });

  it('an idle connection past the Keep-Alive timeout hint is not reused', async () => {
    const { pool, connections } = await make((s) => s.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok'));
    await send(pool);
    // timeout=1 s, less the second of margin: already expired.
    await new Promise((r) => setTimeout(r, 5));
    await send(pool);
    expect(connections()).toBe(2);
  });

  it('nothing listening: connect_failed', async () => {
    const { pool, server } = await make(() => undefined);
    server.close();
    await once(server, 'close');
    expect(await send(pool)).toMatchObject({ failed: 'connect_failed' });
  });

  it('no answer in time: response_timeout', async () => {
    const { pool } = await make(() => undefined, { responseTimeoutMs: 100 });
    expect(await send(pool)).toMatchObject({ failed: 'response_timeout' });
  });

  it('a stall in the middle of the body: response_timeout after the head', async () => {
    const { pool } = await make((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), { responseTimeoutMs: 100 });
    expect(await send(pool)).toMatchObject({ status: 200, body: 'abc', failed: 'response_timeout' });
  });

  it('garbage instead of HTTP: protocol_error', async () => {
    const { pool } = await make((s) => s.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    expect(await send(pool)).toMatchObject({ failed: 'protocol_error' });
  });

  it('more than 32 headers (the parser hands them over in parts) all arrive', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `X-H${i}: v${i}\r\n`).join('');
    const { pool } = await make((s) => s.write(`HTTP/1.1 200 OK\r\n${many}Content-Length: 0\r\n\r\n`));
    const answer = await send(pool);
    expect(Object.keys(answer.headers)).toHaveLength(41);
    expect(answer.headers['x-h39']).toBe('v39');
  });

  it('streams a request body with chunked framing and reuses the connection after it', async () => {
    let received = '';
    const { pool, connections } = await make((s, text) => {
      // Called per piece that holds a blank line: the head, then the last chunk.
      received += text;
      if (received.includes('0\r\n\r\n')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const body = new PassThrough();
    const answer = send(pool, { method: 'POST', head: 'POST / HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n', body, chunked: true });
    body.write('abc');
    setTimeout(() => body.end('defgh'), 10);
    expect(await answer).toMatchObject({ status: 200, body: 'ok' });
    expect(received.split('\r\n\r\n')[1]).toBe('3\r\nabc\r\n5\r\ndefgh\r\n0');
    await send(pool);
    expect(connections()).toBe(1);
  });

  it('a response that comes before the request body is complete: the connection is not reused', async () => {
    const { pool, connections } = await make((s) => s.write('HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n'));
    const body = new PassThrough();
    const answer = await send(pool, { method: 'POST', head: 'POST / HTTP/1.1\r\nhost: t\r\ncontent-length: 100\r\n\r\n', body });
    expect(answer.status).toBe(413);
    body.end('x'.repeat(100));
    await send(pool);
    expect(connections()).toBe(2);
  });

  it('abort drops the exchange and its connection', async () => {
    const { pool, connections } = await make((s, _t, nth) =>
      s.write(nth === 0 ? 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc' : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
    );
    const aborted = await new Promise<boolean>((resolve) => {
      const sink: ResponseSink = {
        head: (_s: number, _h: string[], exchange: Exchange) => {
          exchange.abort();
          setTimeout(() => resolve(true), 20);
        },
        body: () => true,
        end: () => resolve(false),
        failed: () => resolve(false),
      };
      pool.request({ method: 'GET', head: 'GET / HTTP/1.1\r\n\r\n', body: null, chunked: false }, sink);
    });
    expect(aborted).toBe(true);
    expect(pool.idleCount).toBe(0);
    expect(await send(pool)).toMatchObject({ status: 200, body: 'ok' });
    expect(connections()).toBe(2);
  });

  it('pauses reading while the sink is full and resumes on request', async () => {
    const big = 'y'.repeat(256 * 1024);
    const { pool } = await make((s) => s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`));
    let received = 0;
    let pauses = 0;
    await new Promise<void>((resolve, reject) => {
      pool.request(
        { method: 'GET', head: 'GET / HTTP/1.1\r\n\r\n', body: null, chunked: false },
        {
          head: () => undefined,
          body(chunk, resume) {
            received += chunk.length;
            if (pauses < 3) {
              pauses++;
              setTimeout(resume, 5);
              return false;
            }
            return true;
          },
          end: () => resolve(),
          failed: (r) => reject(new Error(r)),
        },
      );
    });
    expect(received).toBe(big.length);
    expect(pauses).toBe(3);
  });
  it('a slow client is not the instance going silent: no response timeout while the sink holds reading', async () => {
    const { pool } = await make(
      (s) => {
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc');
        setTimeout(() => s.write('def'), 30);
      },
      { responseTimeoutMs: 100 },
    );
    const outcome = await new Promise<string>((resolve) => {
      let body = '';
      let held = false;
      pool.request(
        { method: 'GET', head: 'GET / HTTP/1.1\r\n\r\n', body: null, chunked: false },
        {
          head: () => undefined,
          body(chunk, resume) {
            body += chunk.toString();
            if (held) return true;
            // The client takes three response timeouts to drain the first piece.
            held = true;
            setTimeout(resume, 300);
            return false;
          },
          end: () => resolve(`end ${body}`),
          failed: (r) => resolve(`failed ${r} ${body}`),
        },
      );
    });
    expect(outcome).toBe('end abcdef');
  });

  it('the handle request() returns ends the exchange before any answer (a client gone mid-upload)', async () => {
    let closedAt = 0;
    const { pool } = await make((s) => s.once('close', () => (closedAt = Date.now())));
    const body = new PassThrough();
    const sink: ResponseSink = { head: () => undefined, body: () => true, end: () => undefined, failed: () => undefined };
    const exchange = pool.request({ method: 'POST', head: 'POST / HTTP/1.1\r\ncontent-length: 100\r\n\r\n', body, chunked: false }, sink);
    body.write('x'.repeat(10));
    await new Promise((r) => setTimeout(r, 50));
    const abortedAt = Date.now();
    exchange.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
  });

  it('the handle of a finished exchange leaves the connection alone when it carries the next one', async () => {
    const { pool, connections } = await make((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    let first!: Exchange;
    await new Promise<void>((resolve) => {
      first = pool.request({ method: 'GET', head: 'GET / HTTP/1.1\r\n\r\n', body: null, chunked: false }, {
        head: () => undefined,
        body: () => true,
        end: () => resolve(),
        failed: () => resolve(),
      });
    });
    const second = send(pool);
    first.abort();
    expect(await second).toMatchObject({ status: 200, body: 'ok' });
    expect(connections()).toBe(1);
  });
});
