import { readdirSync, readFileSync } from 'node:fs';

/** Environment variable that marks every process of an instance; the process table is the truth. */
export const INSTANCE_MARKER = 'STRATUS_INSTANCE_ID';

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  startTime: string;
  /** CPU time used so far in user space and in the kernel, in clock ticks (USER_HZ, 100 a second on Linux). */
  userTicks: number;
  systemTicks: number;
  /** CPU time of its children that exited and were waited for, in clock ticks. */
  childUserTicks: number;
  childSystemTicks: number;
}

/** Clock ticks a second in /proc (USER_HZ: 100 on every Linux architecture we run on). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** Fields of /proc/<pid>/stat; null when the process is gone. */
export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: rest[0],
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    startTime: rest[19],
    userTicks: Number(rest[11]),
    systemTicks: Number(rest[12]),
    childUserTicks: Number(rest[13]),
    childSystemTicks: Number(rest[14]),
  };
}

export function isAlive(stat: ProcStat | null): stat is ProcStat {
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

function markerOf(pid: number, marker: string): string | null {
  let env: string;
  try {
    env = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return null;
  }
  // Whole variable names only: `X_<marker>=` is not the marker.
  const at = env.startsWith(`${marker}=`) ? 0 : env.indexOf(`\0${marker}=`) + 1;
  if (at === 0 && !env.startsWith(`${marker}=`)) return null;
  const end = env.indexOf('\0', at);
  return env.slice(at + marker.length + 1, end < 0 ? undefined : end);
}

/**
 * A marker's value: the installation, then the resource. Several
 * installations may share a host; each knows its own processes by it.
 */
export function markerValue(installation: string, id: string): string {
  return `${installation}/${id}`;
}

/**
 * The real uid a process runs as; null when it is gone. From `status`, not
 * the owner of its /proc folder: a process that makes itself non-dumpable
 * has a folder owned by root, and must not pass for one of root's.
 */
export function processUid(pid: number): number | null {
  try {
    const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Every live process-group leader of this installation that carries the
 * instance marker, by instance id. Used to adopt instances whose pid file is
 * missing or stale and to prove there is never a second copy of one.
 */
export function scanInstanceLeaders(installation: string): Map<string, ProcStat[]> {
  return scanMarkedLeaders(INSTANCE_MARKER, installation);
}

/**
 * Every live process-group leader whose environment carries `marker` with
 * this installation's identity, by the rest of the marker's value. Anyone
 * can put anything in an environment: callers check who the process runs as
 * before they take it for theirs.
 */
export function scanMarkedLeaders(marker: string, installation: string): Map<string, ProcStat[]> {
  const prefix = markerValue(installation, '');
  const found = new Map<string, ProcStat[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (!isAlive(stat) || stat.pgrp !== stat.pid) continue;
    const value = markerOf(stat.pid, marker);
    if (value === null || !value.startsWith(prefix)) continue;
    const id = value.slice(prefix.length);
    found.set(id, [...(found.get(id) ?? []), stat]);
  }
  return found;
}

/** The live processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return descendantsOf(pid, 1);
}

/**
 * Every live process below `pid` (children, theirs, ... down to `depth`
 * generations), whatever their group or session: one read of the process
 * table.
 */
export function descendantsOf(pid: number, depth = Infinity): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (isAlive(stat)) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  }
  const found: number[] = [];
  let generation = [pid];
  for (let level = 0; level < depth && generation.length; level++) {
    generation = generation.flatMap((parent) => children.get(parent) ?? []);
    found.push(...generation);
  }
  return found;
}

/** `signal` to the process group `pid` leads, or to `pid` alone when it leads none. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // not a group leader, or gone
    }
  }
}

/**
 * SIGKILLs a process and every process below it, whatever their group or
 * session, then `group` when given (a group outlives its leader while a
 * member runs); false when the process was gone. A group kill alone can
 * miss some: PostgreSQL puts each child of its postmaster in a session of
 * its own, and a backend left behind goes on serving its client, commits
 * included, until it next waits and notices its postmaster gone (after a
 * long query, much later). The process is stopped first, so that it starts
 * no other meanwhile. `group` only when the caller owns it: a process
 * started without a session of its own shares its starter's.
 */
export function killTree(pid: number, group?: number): boolean {
  let alive = true;
  try {
    process.kill(pid, 'SIGSTOP');
  } catch {
    alive = false; // gone
  }
  for (const target of alive ? [...descendantsOf(pid), pid] : []) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  if (group !== undefined) signalGroup(group, 'SIGKILL');
  return alive;
}

/** Every live process running as `uid` (a deleted instance's user must have none left before it goes). */
export function processesOf(uid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && processUid(Number(name)) === uid && isAlive(readStat(Number(name))))
    .map(Number);
}

/**
 * CPU seconds used so far by every live process of each owner: `ownerOf`
 * names the owner of a process (by its stat and real uid), or null for none.
 * A process counts its own time and that of its children it has waited for,
 * so the sum keeps what a finished child (a request handler, a build step)
 * used; it drops what an orphan that dies unwaited used, a loss the cgroup
 * counter (CgroupLimiter.cpuSeconds) does not have.
 */
export function cpuSecondsByOwner<K>(ownerOf: (stat: ProcStat, uid: number) => K | null): Map<K, number> {
  const ticks = new Map<K, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = readStat(pid);
    const uid = processUid(pid);
    if (!isAlive(stat) || uid === null) continue;
    const owner = ownerOf(stat, uid);
    if (owner === null) continue;
    ticks.set(owner, (ticks.get(owner) ?? 0) + stat.userTicks + stat.systemTicks + stat.childUserTicks + stat.childSystemTicks);
  }
  return new Map([...ticks].map(([owner, t]) => [owner, t / CLOCK_TICKS_PER_SECOND]));
}
