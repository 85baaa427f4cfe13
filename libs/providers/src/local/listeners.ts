import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

/** A listening TCP socket of this host: its bound address (`0.0.0.0` / `::` for the wildcard) and port. */
export interface TcpListener {
  address: string;
  port: number;
}

const LISTEN = '0A';

/**
 * The kernel writes each 32-bit word of an address in host byte order; on a
 * little-endian host its bytes are reversed.
 */
function wordBytes(hex: string): number[] {
  const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return endianness() === 'LE' ? bytes.reverse() : bytes;
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) return wordBytes(hex).join('.');
  const bytes = [0, 8, 16, 24].flatMap((i) => wordBytes(hex.slice(i, i + 8)));
  // ::ffff:a.b.c.d is an IPv4 address on a dual-stack socket.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16));
  return groups.every((g) => g === '0') ? '::' : groups.join(':');
}

/** Listening TCP sockets of this host's network namespace (/proc/net/tcp and tcp6). */
export function tcpListeners(): TcpListener[] {
  const listeners: TcpListener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this host
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== LISTEN) continue;
      const [address, port] = fields[1].split(':');
      listeners.push({ address: decodeAddress(address), port: parseInt(port, 16) });
    }
  }
  return listeners;
}

/**
 * Whether a connection to `address:port` (IPv4) would land on a wildcard
 * listener: something listens on 0.0.0.0 or :: at that port and nothing is
 * bound to exactly that address there. The kernel hands a connection to the
 * most specific listener, so with no exact one a host service on the
 * wildcard answers for every loopback address of the pool.
 */
export function shadowedByWildcard(address: string, port: number, listeners: TcpListener[] = tcpListeners()): boolean {
  const onPort = listeners.filter((l) => l.port === port);
  if (onPort.some((l) => l.address === address)) return false;
  return onPort.some((l) => l.address === '0.0.0.0' || l.address === '::');
}

/** Whether host:port accepts a TCP connection within `timeoutMs` (refused, reset or silent: false). */
export function canConnect(host: string, port: number, timeoutMs = 3_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(timeoutMs, () => done(false));
  });
}
