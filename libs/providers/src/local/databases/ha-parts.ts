import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../../driver-error';
import { HostAccounts, RunAs } from '../host-accounts';
import { isAlive, markerValue, readStat } from '../process-table';

/**
 * The processes a high-availability database is made of (its coordinator,
 * etcd or ZooKeeper, and its three members), as postgres-ha.ts and
 * clickhouse-ha.ts both supervise them: each part runs in a process group
 * of its own as the database user, marked `<database key>.<part>`, its
 * output in `<dir>/<key>/<part>.log`, and a pid file beside it (pid and
 * start time) that says which process is the part, so a reused pid is not.
 */
export interface HaParts {
  /** Databases live under `<dir>/<key>/`. */
  dir: string;
  accounts: HostAccounts;
  marker: string;
  /** Called with the database's key when one of its parts exits. */
  exited(databaseKey: string): void;
}

/** The file where each database keeps its own settings: root's, 0600 (addresses, ports, secrets of its parts). */
export const HA_STATE = 'ha.json';

/** Starts part `name` of database `key` in `<key>/<name>/`, detached; returns its pid. `env` adds to the parts' own. */
export function spawnPart(parts: HaParts, key: string, name: string, { bin, args }: { bin: string; args: string[] }, runAs: RunAs, env: Record<string, string> = {}): number {
  const dir = join(parts.dir, key);
  const log = openSync(join(dir, `${name}.log`), 'a', 0o600);
  let child: ChildProcess;
  const cwd = join(dir, name);
  try {
    fchmodSync(log, 0o600);
    child = spawn(bin, args, {
      cwd,
      detached: true,
      stdio: ['ignore', log, log],
      ...(runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {}),
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: cwd, ...env, [parts.marker]: markerValue(parts.accounts.installation, `${key}.${name}`) },
    });
  } finally {
    closeSync(log);
  }
  child.on('error', () => undefined);
  if (child.pid === undefined) throw new DriverError('retryable', `could not start ${bin} for ${key}`);
  writeFileSync(join(dir, `${name}.pid`), `${child.pid} ${readStat(child.pid)?.startTime ?? '0'}\n`, { mode: 0o600 });
  child.on('exit', () => parts.exited(key));
  child.unref();
  return child.pid;
}

/** Part `name`'s own process when it runs: the one its pid file names, still the same process and its group's leader. */
export function partPid(parts: Pick<HaParts, 'dir'>, key: string, name: string): number | null {
  try {
    const [pid, startTime] = readFileSync(join(parts.dir, key, `${name}.pid`), 'utf8')
      .trim()
      .split(' ');
    const stat = readStat(Number(pid));
    if (isAlive(stat) && stat.startTime === startTime && stat.pgrp === stat.pid) return stat.pid;
  } catch {
    // no pid file
  }
  return null;
}

/** A folder of the database user's own, closed to everyone else. */
export function ownedDir(path: string, runAs: RunAs): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (runAs.name) chownSync(path, runAs.uid, runAs.gid);
  chmodSync(path, 0o700);
}

/** The database's own settings as it wrote them; null before its layout. */
export function readHaState<T>(parts: Pick<HaParts, 'dir'>, key: string): T | null {
  try {
    return JSON.parse(readFileSync(join(parts.dir, key, HA_STATE), 'utf8')) as T;
  } catch {
    return null;
  }
}

export function writeHaState(parts: Pick<HaParts, 'dir'>, key: string, state: object): void {
  writeFileSync(join(parts.dir, key, HA_STATE), JSON.stringify(state), { mode: 0o600 });
}

/** The last words of every part's log, for a status reason. */
export function partsTail(parts: Pick<HaParts, 'dir'>, key: string, chars: number): string {
  const dir = join(parts.dir, key);
  const logs = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.log')) : [];
  return JSON.stringify(
    logs
      .map((f) => {
        try {
          return `${f}: ${readFileSync(join(dir, f), 'utf8').trim().slice(-chars)}`;
        } catch {
          return '';
        }
      })
      .join(' | '),
  );
}
