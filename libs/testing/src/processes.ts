import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  childrenOf,
  existingInstallationId,
  findUser,
  HostAccounts,
  INSTANCE_MARKER,
  installationCgroups,
  isAlive,
  mountpoints,
  processUid,
  readStat,
  scanMarkedLeaders,
} from '@stratus/providers';
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';

/** Instance process-group leaders of the installation whose instances folder is `dir`, by instance id. */
export function instanceLeadersUnder(dir: string): Map<string, number[]> {
  return markedLeadersUnder(INSTANCE_MARKER, dirname(dir), dir);
}

/**
 * Process-group leaders carrying `marker` with the identity of the
 * installation in `dataDir` and whose working folder is under `dir`, by
 * the marker's resource part. Nothing when the data folder has no identity.
 */
export function markedLeadersUnder(marker: string, dataDir: string, dir: string): Map<string, number[]> {
  const result = new Map<string, number[]>();
  const installation = existingInstallationId(dataDir);
  if (!installation) return result;
  for (const [id, leaders] of scanMarkedLeaders(marker, installation)) {
    for (const leader of leaders) {
      let cwd: string;
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
 * Ends every instance process a test run left in the instances folder `dir`
 * (only its installation's: matched by the marker's identity and by folder,
 * and every process of the installation's instance users) and, as a delete
 * would, removes the instances' cgroups and users.
 */
export async function killInstancesUnder(dir: string): Promise<number> {
  const installation = existingInstallationId(dirname(dir));
  if (!installation) return 0;
  const accounts = new HostAccounts(installation);
  const uids = new Set(accounts.instanceUserNames().map((name) => findUser(name)?.uid));
  const strays = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && uids.has(processUid(Number(name)) ?? undefined));
  const killed = killGroups([...instanceLeadersUnder(dir).values()].flat());
  for (const pid of strays) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  // A killed group leaves its cgroups once the kernel has reaped it, and a
  // user is removed only once nothing runs as it (its uid is handed out again).
  const running = () => readdirSync('/proc').some((name) => /^\d+$/.test(name) && uids.has(processUid(Number(name)) ?? undefined) && isAlive(readStat(Number(name))));
  for (let waited = 0; (killed || strays.length) && running() && waited < 30_000; waited += 100) await sleep(100);
  if (killed || strays.length) await sleep(100);
  const limiter = installationCgroups(installation);
  for (const id of existsSync(dir) ? readdirSync(dir) : []) limiter.remove(id);
  for (const name of accounts.instanceUserNames()) {
    try {
      execFileSync('userdel', ['-f', name], { stdio: 'pipe' });
    } catch {
      // /etc/passwd locked by another useradd: the next delete sweeps it as a leftover
    }
  }
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
  for (const mountpoint of mountpoints()
    .filter((m) => m.startsWith(dir + '/'))
    .reverse()) {
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
  return childrenOf(pid).filter((child) => commandLine(child).includes(command));
}

/** A process's command line, arguments joined by spaces; '' once it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

export function processAlive(pid: number): boolean {
  return isAlive(readStat(pid));
}
