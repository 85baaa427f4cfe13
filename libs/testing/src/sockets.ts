import { readFileSync } from 'node:fs';

/**
 * Whether the kernel has a keep-alive timer armed on the IPv4 TCP socket
 * from `localPort` to `remotePort` on this host (the `tr` column of
 * /proc/net/tcp is 2). Undefined when there is no such socket.
 */
export function keepAliveArmed(localPort: number, remotePort: number): boolean | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6) continue;
    if (fields[1].endsWith(`:${hex(localPort)}`) && fields[2].endsWith(`:${hex(remotePort)}`)) return fields[5].startsWith('02:');
  }
  return undefined;
}
