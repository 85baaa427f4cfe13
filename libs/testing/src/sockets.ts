import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * Established IPv4 TCP connections on `localPort` held by each of `pids`
 * (matched by the socket inodes in their fd tables).
 */
export function establishedByProcess(localPort: number, pids: number[]): Map<number, number> {
  const hex = `:${localPort.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // State 01 is ESTABLISHED; field 9 the inode.
    if (fields.length > 9 && fields[1].endsWith(hex) && fields[3] === '01') inodes.add(fields[9]);
  }
  const counts = new Map<number, number>();
  for (const pid of pids) {
    let n = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) n++;
      } catch {
        // closed meanwhile
      }
    }
    counts.set(pid, n);
  }
  return counts;
}

/** The pids of the processes whose parent is `pid` and whose command line contains `command`. */
export function childPids(pid: number, command = ''): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(command);
      } catch {
        return false;
      }
    })
    .map(Number);
}
