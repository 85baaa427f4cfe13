import { DatabaseEngine } from '@stratus/core';
import { request } from 'node:http';
import { connect } from 'node:net';

/** How long one probe may take: a server that does not answer in this time is not ready yet. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Whether the engine answers on address:port, by the first step of its own
 * protocol, which needs no credential: PostgreSQL answers an SSLRequest
 * with one byte, Redis a PING with PONG or the demand to authenticate,
 * ClickHouse's HTTP interface `/ping` with 200.
 */
export function engineAnswers(engine: DatabaseEngine, address: string, port: number): Promise<boolean> {
  switch (engine) {
    case 'postgres':
      // Int32 length 8, then the SSLRequest code 80877103.
      return exchange(address, port, Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]), (reply) => (reply.length >= 1 ? reply[0] === 0x53 || reply[0] === 0x4e : null));
    case 'redis':
      return exchange(address, port, Buffer.from('PING\r\n'), (reply) => {
        const text = reply.toString('latin1');
        return text.includes('\r\n') ? text.startsWith('+PONG') || text.startsWith('-NOAUTH') : null;
      });
    case 'clickhouse':
      return new Promise((resolve) => {
        const req = request({ host: address, port, path: '/ping', timeout: PROBE_TIMEOUT_MS }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        req.on('error', () => resolve(false));
        req.on('timeout', () => req.destroy());
        req.end();
      });
    default:
      return Promise.resolve(false);
  }
}

/** Sends `hello`, and judges what comes back until `judge` says yes or no (null: read on). */
function exchange(host: string, port: number, hello: Buffer, judge: (reply: Buffer) => boolean | null): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = Buffer.alloc(0);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => socket.write(hello));
    socket.on('data', (chunk) => {
      reply = Buffer.concat([reply, chunk]);
      const verdict = judge(reply);
      if (verdict !== null) done(verdict);
    });
    socket.once('error', () => done(false));
    socket.once('end', () => done(false));
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
  });
}
