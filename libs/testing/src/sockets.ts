import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { canConnect } from '@stratus/providers';

/** One row of /proc/net/tcp and tcp6: ports, state (01 established, 0A listening), timer (`tr`: 2 is keep-alive) and inode. */
interface TcpSocket {
  localPort: number;
  remotePort: number;
  state: string;
  timer: string;
  inode: string;
}

function tcpSockets(): TcpSocket[] {
  const rows: TcpSocket[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this host
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      rows.push({ localPort: port(f[1]), remotePort: port(f[2]), state: f[3], timer: f[5].split(':')[0], inode: f[9] });
    }
  }
  return rows;
}

/** The inodes of the sockets open in `pid`. */
function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:[')) inodes.add(target.slice(8, -1));
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * Whether the kernel has a keep-alive timer armed on the TCP socket from
 * `localPort` to `remotePort` on this host. Undefined when there is no such socket.
 */
export function keepAliveArmed(localPort: number, remotePort: number): boolean | undefined {
  const socket = tcpSockets().find((s) => s.localPort === localPort && s.remotePort === remotePort);
  return socket && socket.timer === '02';
}

/** Established TCP connections on `localPort` held by each of `pids`. */
export function establishedByProcess(localPort: number, pids: number[]): Map<number, number> {
  const established = tcpSockets().filter((s) => s.localPort === localPort && s.state === '01');
  return new Map(
    pids.map((pid) => {
      const inodes = socketInodesOf(pid);
      return [pid, established.filter((s) => inodes.has(s.inode)).length];
    }),
  );
}

/** The TCP ports `pid` listens on. */
export function listeningPortsOf(pid: number): number[] {
  const inodes = socketInodesOf(pid);
  return tcpSockets()
    .filter((s) => s.state === '0A' && inodes.has(s.inode))
    .map((s) => s.localPort);
}

/** Whether host:port accepts a TCP connection (the local provider's own probe). */
export const accepts = canConnect;
