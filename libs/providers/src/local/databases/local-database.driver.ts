import { DatabaseEngine } from '@stratus/core';
import { ChildProcess, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseDriver, DatabaseServerSpec, ObservedDatabaseServer } from '../../databases.driver';
import { DriverError } from '../../driver-error';
import { isAlive, readStat, scanMarkedLeaders } from '../process-table';
import { RunAs } from '../run-user';
import { LocalEngine, ServerPaths } from './local-engine';

/** Environment variable that marks a database server's process group; the process table is the truth. */
export const DATABASE_MARKER = 'STRATUS_DATABASE_SERVER';

export interface LocalDatabaseOptions {
  /** Servers live under `<dir>/<key>/`. */
  dir: string;
  runAs: RunAs;
  startTimeoutMs: number;
  engines: Record<DatabaseEngine, LocalEngine>;
}

const POLL_MS = 10;
/**
 * Readiness is probed every READY_POLL_MIN_MS at first (a probe is one local
 * connect; Redis is up a few ms after spawn, so a 10 ms step was up to half
 * its start), backing off to POLL_MS for slow starters.
 */
const READY_POLL_MIN_MS = 2;
const STOP_GRACE_MS = 10_000;
const LAID_OUT = 'laid-out';

/**
 * Database servers as supervised processes of the worker: each runs as the
 * unprivileged run user, in its own process group, with its data under
 * `<dir>/<key>/data`. They outlive the worker and are adopted again from
 * their pid file (pid and start time, so a reused pid is never mistaken for
 * the server), or from the process table when the pid file is missing.
 */
export class LocalDatabaseDriver implements DatabaseDriver {
  private readonly exitListeners: Array<(key: string) => void> = [];
  private readonly inflight = new Map<string, Promise<ObservedDatabaseServer>>();

  constructor(private readonly opts: LocalDatabaseOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o755 });
  }

  onExit(listener: (key: string) => void): void {
    this.exitListeners.push(listener);
  }

  async observe(key: string): Promise<ObservedDatabaseServer | null> {
    if (!existsSync(this.paths(key).dir)) return null;
    const pid = this.runningPid(key);
    return { running: pid !== null, pid };
  }

  /** One start at a time per server in this process; a second caller shares the first's outcome. */
  ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    const pending = this.inflight.get(spec.key);
    if (pending) return pending;
    const started = this.start(spec).finally(() => this.inflight.delete(spec.key));
    this.inflight.set(spec.key, started);
    return started;
  }

  async delete(key: string): Promise<void> {
    // A start in progress finishes (or fails) first, so nothing it makes outlives the delete.
    await this.inflight.get(key)?.catch(() => undefined);
    await this.remove(key);
  }

  private async remove(key: string): Promise<void> {
    await this.stop(key);
    rmSync(this.paths(key).dir, { recursive: true, force: true });
  }

  private async start(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    if (spec.ha) {
      throw new DriverError(
        'invalid',
        'high availability (ha: true) is not available yet: it needs three servers with automatic failover, which a later release adds; ' +
          'create the server without ha, or wait for HA support',
      );
    }
    const engine = this.opts.engines[spec.engine];
    const paths = this.paths(spec.key);
    const fresh = !existsSync(join(paths.dir, LAID_OUT));
    try {
      if (fresh) {
        const missing = await engine.missing(spec);
        if (missing) throw new DriverError('invalid', missing);
        await this.layOut(engine, spec, paths);
      }
      // A fresh layout has never been started (the marker is written before any spawn): no need to look.
      let pid = fresh ? null : this.runningPid(spec.key);
      if (pid === null) pid = this.spawn(engine, spec, paths);
      await this.waitUntilUp(engine, spec, paths, pid);
      await engine.configure(spec, paths);
      return { running: true, pid };
    } catch (err) {
      if (err instanceof DriverError && err.terminal) {
        // A server that never came up leaves nothing behind; one that ran before keeps its data.
        if (fresh) await this.remove(spec.key);
        else await this.stop(spec.key);
      }
      throw err;
    }
  }

  /** All or nothing: the marker is written last, so a half-made layout is redone from scratch. */
  private async layOut(engine: LocalEngine, spec: DatabaseServerSpec, paths: ServerPaths): Promise<void> {
    rmSync(paths.dir, { recursive: true, force: true });
    mkdirSync(paths.dir, { recursive: true, mode: 0o755 });
    for (const d of [paths.run]) {
      mkdirSync(d, { mode: 0o700 });
      this.chown(d);
    }
    await engine.layOut(spec, paths, this.opts.runAs);
    writeFileSync(join(paths.dir, LAID_OUT), '');
  }

  private spawn(engine: LocalEngine, spec: DatabaseServerSpec, paths: ServerPaths): number {
    const { bin, args, env } = engine.command(spec, paths);
    const { runAs } = this.opts;
    const log = openSync(paths.log, 'a');
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        cwd: paths.dir,
        detached: true,
        stdio: ['ignore', log, log],
        ...(runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {}),
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: paths.data, ...env, [DATABASE_MARKER]: spec.key },
      });
    } finally {
      closeSync(log);
    }
    // Without a listener a failed spawn would crash the worker.
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new DriverError('retryable', `could not start ${bin} for ${spec.key}`);
    writeFileSync(join(paths.dir, 'pid'), `${child.pid} ${readStat(child.pid)?.startTime ?? '0'}\n`);
    child.on('exit', () => {
      for (const listener of this.exitListeners) listener(spec.key);
    });
    child.unref();
    return child.pid;
  }

  private async waitUntilUp(engine: LocalEngine, spec: DatabaseServerSpec, paths: ServerPaths, pid: number): Promise<void> {
    const deadline = Date.now() + this.opts.startTimeoutMs;
    let interval = READY_POLL_MIN_MS;
    while (Date.now() < deadline) {
      if (!isAlive(readStat(pid))) {
        throw new DriverError('invalid', `${spec.engine} server exited while starting; last output: ${this.tail(paths)}`);
      }
      if (await engine.probe(spec, paths).catch(() => false)) return;
      await sleep(interval);
      interval = Math.min(POLL_MS, interval + 1);
    }
    throw new DriverError('invalid', `${spec.engine} server did not accept connections within ${this.opts.startTimeoutMs} ms; last output: ${this.tail(paths)}`);
  }

  /** Stops the whole process group: the server and everything it forked. */
  private async stop(key: string): Promise<void> {
    const pid = this.runningPid(key);
    if (pid === null) return;
    const engine = this.opts.engines[key.split('-')[0] as DatabaseEngine];
    signalGroup(pid, engine?.stopSignal ?? 'SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (isAlive(readStat(pid)) && Date.now() < deadline) await sleep(POLL_MS * 2);
    signalGroup(pid, 'SIGKILL');
  }

  /** The server's pid when it runs: from the pid file, else from the process table. */
  private runningPid(key: string): number | null {
    try {
      const [pid, startTime] = readFileSync(join(this.paths(key).dir, 'pid'), 'utf8').trim().split(' ');
      const stat = readStat(Number(pid));
      if (isAlive(stat) && stat.startTime === startTime && stat.pgrp === stat.pid) return stat.pid;
    } catch {
      // no pid file
    }
    const leader = scanMarkedLeaders(DATABASE_MARKER).get(key)?.[0];
    if (!leader) return null;
    try {
      writeFileSync(join(this.paths(key).dir, 'pid'), `${leader.pid} ${leader.startTime}\n`);
    } catch {
      // control folder gone; the caller stops it
    }
    return leader.pid;
  }

  private paths(key: string): ServerPaths {
    const dir = join(this.opts.dir, key);
    return { dir, data: join(dir, 'data'), run: join(dir, 'run'), log: join(dir, 'server.log') };
  }

  private chown(path: string): void {
    if (this.opts.runAs.name) chownSync(path, this.opts.runAs.uid, this.opts.runAs.gid);
  }

  private tail(paths: ServerPaths, chars = 400): string {
    try {
      return JSON.stringify(readFileSync(paths.log, 'utf8').trim().slice(-chars));
    } catch {
      return '(no output)';
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // not a group leader, or gone
    }
  }
}
