import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CgroupLimiter, INSTANCE_MARKER, isAlive, mountpoints, readStat, scanMarkedLeaders } from '@stratus/providers';
import { execFileSync } from 'node:child_process';

/** Instance process-group leaders whose working folder is under `dir`, by instance id. */
export function instanceLeadersUnder(dir: string): Map<string, number[]> {
  return markedLeadersUnder(INSTANCE_MARKER, dir);
}

/** Process-group leaders carrying `marker` whose working folder is under `dir`, by marker value. */
export function markedLeadersUnder(marker: string, dir: string): Map<string, number[]> {
  const result = new Map<string, number[]>();
  for (const [id, leaders] of scanMarkedLeaders(marker)) {
    for (const leader of leaders) {
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${leader.pid}/cwd`);
      } catch {
        continue;
      }
      if (cwd.startsWith(dir)) result.set(id, [...(result.get(id) ?? []), leader.pid]);
    }
  }
  return result;
}

/**
 * Ends every instance process a test run left under `dir` (only ours: matched
 * by folder) and, as a delete would, removes the instances' cgroups.
 */
export async function killInstancesUnder(dir: string): Promise<number> {
  const killed = killGroups([...instanceLeadersUnder(dir).values()].flat());
  // A killed group leaves its cgroups once the kernel has reaped it.
  if (killed) await sleep(300);
  const limiter = new CgroupLimiter();
  for (const id of existsSync(dir) ? readdirSync(dir) : []) limiter.remove(id);
  return killed;
}

/** SIGKILLs the process groups led by `pids`; returns how many were still there. */
export function killGroups(pids: Iterable<number>): number {
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
      killed++;
    } catch {
      // gone already
    }
  }
  return killed;
}

/** Unmounts every volume a test run left mounted under `dir` (only ours: matched by path), so the folder can be removed. */
export function unmountUnder(dir: string): number {
  let unmounted = 0;
  for (const mountpoint of mountpoints().filter((m) => m.startsWith(dir + '/')).reverse()) {
    try {
      execFileSync('umount', ['-l', mountpoint], { stdio: 'pipe' });
      unmounted++;
    } catch {
      // gone already
    }
  }
  return unmounted;
}

/** /proc's clock ticks a second (USER_HZ): 100 on Linux. */
const CLOCK_TICKS = 100;

/** CPU time `pids` (threads included) have used so far, in µs, in user space and in the kernel; a gone process counts 0. */
export function cpuTimeUs(pids: number[]): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const stat of pids.map(readStat)) {
    user += stat?.userTicks ?? 0;
    system += stat?.systemTicks ?? 0;
  }
  return { user: user * (1e6 / CLOCK_TICKS), system: system * (1e6 / CLOCK_TICKS) };
}

/** The pids of the processes whose parent is `pid` and whose command line contains `command`. */
export function childPids(pid: number, command = ''): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && readStat(Number(name))?.ppid === pid)
    .map(Number)
    .filter((child) => commandLine(child).includes(command));
}

/** A process's command line, arguments joined by spaces; '' once it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Every process below `pid` (children, theirs, ...), whatever their process group. */
export function descendantPids(pid: number): number[] {
  const children = childPids(pid);
  return [...children, ...children.flatMap(descendantPids)];
}

export function processAlive(pid: number): boolean {
  return isAlive(readStat(pid));
}
