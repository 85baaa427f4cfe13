import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { envelope } from './error-envelope';

const answered = new WeakSet<Socket>();

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over
 * the size limit, bytes that are not HTTP) still leave as the envelope:
 * Fastify's default answer is its own `{error, message, statusCode}`. The
 * connection closes gracefully (the caller may still be sending the headers
 * it did not read), so the caller gets the answer rather than a reset.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // The parser reports the same error again for every chunk still arriving.
  if (answered.has(socket)) return;
  answered.add(socket);
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request timed out']
        : [400, 'malformed HTTP request'];
  const body = JSON.stringify(envelope(status, message));
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.once('end', () => socket.destroy());
  socket.setTimeout(5_000, () => socket.destroy());
}
