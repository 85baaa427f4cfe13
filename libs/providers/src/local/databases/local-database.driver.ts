import { DatabaseEngine } from '@stratus/core';
import { ChildProcess, spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseDriver, DatabaseServerSpec, ObservedDatabaseServer } from '../../databases.driver';
import { DriverError } from '../../driver-error';
import { HostAccounts, RunAs } from '../host-accounts';
import { isAlive, killTree, markerValue, processUid, readStat, scanMarkedLeaders, signalGroup } from '../process-table';
import { SystemPackages } from '../system-packages';
import { LoadBalancerDriver } from '../../load-balancer.driver';
import { HaPeers, SpareEvents } from '../local-hooks';
import { ServerPeer } from '../packet-filter';
import { ClickHouseHa, clickhouseHaPeers } from './clickhouse-ha';
import { postgresHaPeers, PostgresHa } from './postgres-ha';
import { LocalEngine, ServerCommand, ServerPaths, SpareLink } from './local-engine';

const run = promisify(execFile);

/** Environment variable that marks a database server's process group (`<installation>/<key>`); the process table is the truth. */
export const DATABASE_MARKER = 'STRATUS_DATABASE_SERVER';

export interface LocalDatabaseOptions {
  /** Servers live under `<dir>/<key>/`. */
  dir: string;
  accounts: HostAccounts;
  startTimeoutMs: number;
  /** An engine left out is one this driver does not run: its creates end in error saying so. */
  engines: Partial<Record<DatabaseEngine, LocalEngine>>;
  /** Installs what an engine lacks on first use; absent: what is missing is an error at once. */
  packages?: SystemPackages;
  /** Where ha databases get their listener; absent: ha is refused with a reason. */
  balancer?: LoadBalancerDriver;
  /** Where PostgreSQL templates live (ha members are administered like single servers). */
  templatesDir?: string;
}

const POLL_MS = 10;
/**
 * Readiness is probed every READY_POLL_MIN_MS at first (a probe is one local
 * connect; Redis is up so soon after spawn that a POLL_MS step was a large
 * share of its start: bench/README.md, databases), backing off to POLL_MS for
 * slow starters.
 */
const READY_POLL_MIN_MS = 2;
const STOP_GRACE_MS = 10_000;
const LAID_OUT = 'laid-out';
/** Written when a server is spawned, removed once it took its spec (StartRecord). */
const STARTING = 'starting';

interface StartRecord {
  startedAt: number;
  /** Its data was laid out for this start: a failed start removes the server. */
  fresh: boolean;
}
/**
 * Spares live in `<dir>/spare-<engine>-<owner pid>-<owner start time>-<n>/`
 * until a create renames the folder to the server's key; the owner tells a
 * later worker which spares were left behind by one that is gone.
 */
const SPARE_PREFIX = 'spare-';
/** A claimed spare is replaced this long after, off the path of the create that claimed it. */
const SPARE_REFILL_DELAY_MS = 50;
/** A spare that exited on its own, or failed to start, is replaced this long after, so one that keeps dying is not a loop. */
const SPARE_RESTART_DELAY_MS = 1_000;
/** Spares of an engine that failed to start this many times in a row: none from then on. */
const SPARE_ATTEMPTS = 3;

/** Numbers spares in this process (every driver in it: their folders share the owner part of the name). */
let spareSeq = 0;

/** The local observation: the server's process group leader too. */
export interface LocalObservedDatabaseServer extends ObservedDatabaseServer {
  pid: number | null;
}

interface Spare {
  key: string;
  pid: number;
  link: SpareLink;
}

/**
 * Database servers as supervised processes of the worker: each runs as the
 * installation's database user (which no instance is), in its own process
 * group, with its data under `<dir>/<key>/data`. Every folder on the way is
 * root's with the database user's group, closed to everyone else, so no
 * instance reaches a server's files or unix sockets. They outlive the
 * worker and are adopted again from their pid file (pid and start time, so
 * a reused pid is never mistaken for the server), or from the process table
 * when the pid file is missing: only a process of this installation that
 * runs as the database user.
 */
export class LocalDatabaseDriver implements DatabaseDriver {
  private readonly exitListeners: Array<(key: string) => void> = [];
  private readonly inflight = new Map<string, Promise<LocalObservedDatabaseServer>>();
  /** Started spares by engine, and how many of each to keep (0 until keepSpares). */
  private readonly spares = new Map<DatabaseEngine, Spare[]>();
  private sparesWanted = 0;
  private refillTimer: NodeJS.Timeout | null = null;
  private refilling: Promise<void> = Promise.resolve();
  /** Told of spares that fail, are ready to claim, and are claimed. */
  private spareEvents: SpareEvents = { error: () => undefined };
  /** Failed spare starts in a row, by engine. */
  private readonly spareFailures = new Map<DatabaseEngine, number>();
  /** Spare key -> the key of the server it became, for the exit listeners. */
  private readonly claimedAs = new Map<string, string>();

  private owner: Promise<RunAs> | null = null;
  /** High-availability PostgreSQL: three Patroni members and etcd per database (postgres-ha.ts). */
  private readonly ha: PostgresHa;
  /** High-availability analytics: three ClickHouse members and ZooKeeper per database (clickhouse-ha.ts). */
  private readonly clickhouseHa: ClickHouseHa;

  constructor(private readonly opts: LocalDatabaseOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o710 });
    this.clickhouseHa = new ClickHouseHa({
      dir: opts.dir,
      accounts: opts.accounts,
      startTimeoutMs: opts.startTimeoutMs,
      marker: DATABASE_MARKER,
      balancer: opts.balancer ?? null,
      runAs: () => this.runAs(),
      exited: (key) => this.exitListeners.forEach((listener) => listener(key)),
    });
    this.ha = new PostgresHa({
      dir: opts.dir,
      accounts: opts.accounts,
      templatesDir: opts.templatesDir ?? join(opts.dir, '..', 'templates'),
      startTimeoutMs: opts.startTimeoutMs,
      marker: DATABASE_MARKER,
      balancer: opts.balancer ?? null,
      runAs: () => this.runAs(),
      exited: (key) => this.exitListeners.forEach((listener) => listener(key)),
    });
  }

  /** The database user, made on first use; the servers folder closed to everyone but it. */
  private runAs(): Promise<RunAs> {
    this.owner ??= this.opts.accounts.databaseUser().then((user) => {
      this.closeToOthers(this.opts.dir, user);
      return user;
    });
    this.owner.catch(() => (this.owner = null));
    return this.owner;
  }

  /** root's, passable by the database user's group only. */
  private closeToOthers(dir: string, user: RunAs): void {
    if (user.name) chownSync(dir, process.getuid!(), user.gid);
    chmodSync(dir, 0o710);
  }

  /** What an ha database's servers open to one another (LocalHooks.databasePeers). */
  peers(database: HaPeers): ServerPeer[] {
    if (database.engine === 'postgres') return postgresHaPeers(database);
    return database.engine === 'clickhouse' ? clickhouseHaPeers(database) : [];
  }

  onExit(listener: (key: string) => void): void {
    this.exitListeners.push(listener);
  }

  /**
   * Keeps `count` started spares of each engine that can take a spec while
   * running (LocalEngine.spare), so a create only claims one. Spares a gone
   * worker left are stopped first. Only the worker calls this; a spare that
   * cannot be started is reported to `events.error` (and after SPARE_ATTEMPTS
   * in a row, no longer tried), each one a create can claim to `ready`, and
   * each claim to `claimed`. Resolves once the first spares are up (or have
   * failed).
   */
  keepSpares(count: number, events: SpareEvents): Promise<void> {
    this.sparesWanted = count;
    this.spareEvents = events;
    for (const engine of Object.values(this.opts.engines)) engine?.keepCopies?.(count);
    this.removeOrphanSpares();
    this.refilling = this.refilling.then(() => this.refill());
    return this.refilling;
  }

  /** Stops the spares; servers keep running. */
  async close(): Promise<void> {
    this.sparesWanted = 0;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    await this.refilling;
    const all = [...this.spares.values()].flat();
    this.spares.clear();
    for (const spare of all) spare.link.close();
    await Promise.all(all.map((spare) => this.remove(spare.key)));
  }

  async observe(key: string): Promise<LocalObservedDatabaseServer | null> {
    if (this.clickhouseHa.holds(key)) return this.clickhouseHa.observe(key);
    if (this.ha.holds(key)) return this.ha.observe(key);
    if (!existsSync(this.paths(key).dir)) return null;
    const pid = this.runningPid(key);
    return { running: pid !== null, ready: pid !== null && this.startRecord(this.paths(key)) === null, pid };
  }

  /** One call at a time per server in this process; a second caller shares the first's outcome. */
  ensureRunning(spec: DatabaseServerSpec): Promise<LocalObservedDatabaseServer> {
    const pending = this.inflight.get(spec.key);
    if (pending) return pending;
    const started = this.start(spec).finally(() => this.inflight.delete(spec.key));
    this.inflight.set(spec.key, started);
    return started;
  }

  async delete(key: string): Promise<void> {
    // A start in progress finishes (or fails) first, so nothing it makes outlives the delete.
    await this.inflight.get(key)?.catch(() => undefined);
    // Its listener and processes exist only once ha.json does (written last by the layout).
    if (this.clickhouseHa.holds(key)) await this.clickhouseHa.delete(key);
    else if (this.ha.holds(key)) await this.ha.delete(key);
    await this.remove(key);
  }

  private async remove(key: string): Promise<void> {
    await this.stop(key);
    rmSync(this.paths(key).dir, { recursive: true, force: true });
  }

  private async start(spec: DatabaseServerSpec): Promise<LocalObservedDatabaseServer> {
    if (spec.ha && (spec.engine === 'postgres' || spec.engine === 'clickhouse')) return this.startHa(spec);
    if (spec.ha) {
      throw new DriverError(
        'invalid',
        `high availability (ha: true) is not available yet for ${spec.engine}: it needs three servers with automatic failover, which a later release adds; ` +
          'create the server without ha, or wait for HA support',
      );
    }
    const engine = this.opts.engines[spec.engine];
    if (!engine) throw new DriverError('invalid', `${spec.engine} servers are not run by this provider`);
    const paths = this.paths(spec.key);
    const fresh = !existsSync(join(paths.dir, LAID_OUT));
    const starting = this.startRecord(paths);
    const runAs = await this.runAs();
    try {
      if (fresh) {
        const missing = await engine.missing(spec);
        if (missing) {
          const installing = await this.install(engine, spec, missing);
          if (installing) return installing;
        }
        // What an interrupted start left (a half-claimed spare, say) goes before its folder does.
        if (existsSync(paths.dir)) await this.stop(spec.key);
        const claimed = await this.claimSpare(engine, spec, paths, runAs);
        // The claim was answered once the server listened on the address with the spec applied.
        if (claimed !== null) return { running: true, ready: true, pid: claimed };
        await this.layOut(engine, spec, paths, runAs);
        // A fresh layout has never been started (the marker is written before any spawn): no need to look.
        return this.spawnStarting(spec, engine, paths, runAs, true);
      }
      const pid = this.runningPid(spec.key);
      // A reset password an engine takes only from its settings: rewritten, and the server restarted on them.
      if (!starting && engine.credentialsStale?.(spec, paths)) {
        if (pid !== null) await this.stop(spec.key);
        engine.writeCredentials!(spec, paths, runAs);
        return this.spawnStarting(spec, engine, paths, runAs, false);
      }
      if (pid === null) {
        if (starting) throw new DriverError('invalid', `${spec.engine} server exited while starting; last output: ${this.tail(paths)}`);
        await this.upgrade(engine, paths, runAs);
        return this.spawnStarting(spec, engine, paths, runAs, false);
      }
      if (!(await engine.probe(spec, paths).catch(() => false))) {
        if (starting && Date.now() - starting.startedAt > this.opts.startTimeoutMs) {
          throw new DriverError('invalid', `${spec.engine} server did not accept connections within ${this.opts.startTimeoutMs} ms; last output: ${this.tail(paths)}`);
        }
        return { running: true, ready: false, pid };
      }
      await engine.configure(spec, paths);
      rmSync(join(paths.dir, STARTING), { force: true });
      return { running: true, ready: true, pid };
    } catch (err) {
      if (err instanceof DriverError && err.terminal) {
        // A server that never came up leaves nothing behind; one that ran before keeps its data.
        if (fresh || starting?.fresh) await this.remove(spec.key);
        else await this.stop(spec.key);
      }
      throw err;
    }
  }

  /**
   * An ha database: what it needs (Patroni and etcd, ClickHouse and
   * ZooKeeper) installed on first use where the worker may, then PostgresHa
   * or ClickHouseHa does the rest.
   */
  private async startHa(spec: DatabaseServerSpec): Promise<LocalObservedDatabaseServer> {
    const ha = spec.engine === 'clickhouse' ? this.clickhouseHa : this.ha;
    if (!ha.holds(spec.key)) {
      const missing = ha.missing(spec);
      if (missing) {
        const need = ha.packagesFor();
        if (!need) throw new DriverError('invalid', missing);
        const refusal = this.opts.packages ? this.opts.packages.refusal(need) : 'this driver installs nothing';
        if (refusal) throw new DriverError('invalid', `${missing}; not installed on first use: ${refusal} (apt-get install ${need.packages.join(' ')} as root adds it)`);
        const state = this.opts.packages!.request(need);
        if (state.state === 'installing') return { running: false, ready: false, pid: null, step: state.step };
        if (state.state === 'failed') throw new DriverError('invalid', `${missing}; ${state.reason}`);
        const still = ha.missing(spec);
        if (still) throw new DriverError('invalid', still);
      }
    }
    return ha.ensureRunning(spec);
  }

  /**
   * What the host lacks for `spec`, installed by the worker where it may
   * (SystemPackages): while the install runs, a not-ready observation with
   * the step; null once it is there. Where it may not, or the install did
   * not supply it, a terminal error that says what is missing and why it
   * was not installed.
   */
  private async install(engine: LocalEngine, spec: DatabaseServerSpec, missing: string): Promise<LocalObservedDatabaseServer | null> {
    const done: string[] = [];
    // One need after another: PostgreSQL 15 from npm, say, then what its extensions need.
    for (;;) {
      const need = engine.packagesFor?.(spec) ?? null;
      if (!need || done.includes(need.packages.join(' '))) throw new DriverError('invalid', done.length ? `${missing} (after installing ${done.join(', ')})` : missing);
      const how = need.manager === 'npm' ? `npm install ${need.packages.join(' ')}` : `apt-get install ${need.packages.join(' ')} as root`;
      const refusal = this.opts.packages ? this.opts.packages.refusal(need) : 'this driver installs nothing';
      if (refusal) throw new DriverError('invalid', `${missing}; not installed on first use: ${refusal} (${how} adds it)`);
      const state = this.opts.packages!.request(need);
      if (state.state === 'installing') return { running: false, ready: false, pid: null, step: state.step };
      if (state.state === 'failed') throw new DriverError('invalid', `${missing}; ${state.reason}`);
      done.push(need.packages.join(' '));
      const still = await engine.missing(spec);
      if (!still) return null;
      missing = still;
    }
  }

  /**
   * Spawns the server and returns at once: the next ensureRunning looks
   * again. The start record says, across calls and worker restarts, that a
   * server gone meanwhile failed to start (rather than stopped after it ran),
   * since when it has been starting, and whether it ever ran before.
   */
  private spawnStarting(spec: DatabaseServerSpec, engine: LocalEngine, paths: ServerPaths, runAs: RunAs, fresh: boolean): LocalObservedDatabaseServer {
    const record: StartRecord = { startedAt: Date.now(), fresh };
    writeFileSync(join(paths.dir, STARTING), JSON.stringify(record), { mode: 0o600 });
    try {
      const pid = this.spawn(spec.key, engine.command(spec, paths), paths, runAs);
      return { running: true, ready: false, pid };
    } catch (err) {
      // Nothing was started: a repeat spawns again rather than finding a start that "exited".
      rmSync(join(paths.dir, STARTING), { force: true });
      throw err;
    }
  }

  private startRecord(paths: ServerPaths): StartRecord | null {
    try {
      return JSON.parse(readFileSync(join(paths.dir, STARTING), 'utf8')) as StartRecord;
    } catch {
      return null;
    }
  }

  /** All or nothing: the marker is written last, so a half-made layout is redone from scratch. */
  private async layOut(engine: LocalEngine, spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    rmSync(paths.dir, { recursive: true, force: true });
    this.makeServerDir(paths, runAs);
    await engine.layOut(spec, paths, runAs);
    writeFileSync(join(paths.dir, LAID_OUT), '');
  }

  /** The control folder (root's, passable by the database user only) and the sockets folder (the database user's). */
  private makeServerDir(paths: ServerPaths, runAs: RunAs): void {
    mkdirSync(paths.dir, { recursive: true, mode: 0o710 });
    this.closeToOthers(paths.dir, runAs);
    mkdirSync(paths.run, { mode: 0o700 });
    if (runAs.name) chownSync(paths.run, runAs.uid, runAs.gid);
  }

  /**
   * A server laid out by an earlier release, before its next start: its
   * files become the database user's (they were a user instances shared)
   * and its folders close to others; the engine rewrites what it must.
   */
  private async upgrade(engine: LocalEngine, paths: ServerPaths, runAs: RunAs): Promise<void> {
    this.closeToOthers(paths.dir, runAs);
    for (const d of [paths.data, paths.run]) {
      if (runAs.name && existsSync(d) && statSync(d).uid !== runAs.uid) await run('chown', ['-R', '-P', '-h', `${runAs.uid}:${runAs.gid}`, '--', d]);
    }
    await engine.beforeStart?.(paths, runAs);
  }

  /**
   * A started spare of the spec's engine, made into its server and moved to
   * its folder; null when there is none or the claim failed (the spare is
   * then gone, and the caller starts a server the usual way).
   */
  private async claimSpare(engine: LocalEngine, spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<number | null> {
    const spare = engine.spare && this.spares.get(spec.engine)?.shift();
    if (!spare) return null;
    this.scheduleRefill(SPARE_REFILL_DELAY_MS);
    try {
      if (!isAlive(readStat(spare.pid))) throw new Error('the spare exited');
      // The pid file, the log and the server's working folder move with it.
      renameSync(this.paths(spare.key).dir, paths.dir);
      this.claimedAs.set(spare.key, spec.key);
      await spare.link.claim(spec, paths, runAs);
      writeFileSync(join(paths.dir, LAID_OUT), '');
      this.spareEvents.claimed?.(spec.engine, spare.key, spec.key);
      return spare.pid;
    } catch (err) {
      this.spareEvents.error(spec.engine, err as Error);
      this.claimedAs.delete(spare.key);
      killTree(spare.pid, spare.pid);
      for (const dir of [this.paths(spare.key).dir, paths.dir]) rmSync(dir, { recursive: true, force: true });
      return null;
    } finally {
      spare.link.close();
    }
  }

  private scheduleRefill(delayMs: number): void {
    if (this.refillTimer || this.sparesWanted === 0) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = null;
      this.refilling = this.refilling.then(() => this.refill());
    }, delayMs);
    this.refillTimer.unref();
  }

  /**
   * Starts spares until each engine that has them holds `sparesWanted`. A
   * failed start is tried again a second later, up to SPARE_ATTEMPTS in a row.
   */
  private async refill(): Promise<void> {
    for (const [name, engine] of Object.entries(this.opts.engines) as Array<[DatabaseEngine, LocalEngine]>) {
      if (!engine?.spare || (this.spareFailures.get(name) ?? 0) >= SPARE_ATTEMPTS) continue;
      const pool = this.spares.get(name) ?? [];
      this.spares.set(name, pool);
      while (pool.length < this.sparesWanted) {
        const key = `${SPARE_PREFIX}${name}-${process.pid}-${readStat(process.pid)?.startTime}-${++spareSeq}`;
        try {
          pool.push(await this.startSpare(engine, key));
          this.spareFailures.delete(name);
          this.spareEvents.ready?.(name, key);
        } catch (err) {
          const failures = (this.spareFailures.get(name) ?? 0) + 1;
          this.spareFailures.set(name, failures);
          await this.remove(key);
          this.spareEvents.error(name, err as Error);
          if (failures < SPARE_ATTEMPTS) this.scheduleRefill(SPARE_RESTART_DELAY_MS);
          break;
        }
      }
    }
  }

  private async startSpare(engine: LocalEngine, key: string): Promise<Spare> {
    const paths = this.paths(key);
    const runAs = await this.runAs();
    this.makeServerDir(paths, runAs);
    await engine.spare!.layOut(paths, runAs);
    const pid = this.spawn(key, engine.spare!.command(paths), paths, runAs);
    let link: SpareLink | null = null;
    await this.waitUntilUp(pid, paths, `spare ${key}`, async () => (link = await engine.spare!.connect(paths)) !== null);
    return { key, pid, link: link! };
  }

  /** Spares whose owner process is gone: stopped and removed. */
  private removeOrphanSpares(): void {
    for (const name of readdirSync(this.opts.dir)) {
      if (!name.startsWith(SPARE_PREFIX)) continue;
      const [, , owner, startTime] = name.split('-');
      const stat = readStat(Number(owner));
      if (isAlive(stat) && stat.startTime === startTime) continue;
      const pid = this.runningPid(name);
      if (pid !== null) killTree(pid, pid);
      rmSync(this.paths(name).dir, { recursive: true, force: true });
    }
  }

  private spawn(key: string, { bin, args, env }: ServerCommand, paths: ServerPaths, runAs: RunAs): number {
    // The server's output, root's: it is read through the control plane only.
    const log = openSync(paths.log, 'a', 0o600);
    let child: ChildProcess;
    try {
      fchmodSync(log, 0o600);
      child = spawn(bin, args, {
        cwd: paths.dir,
        detached: true,
        stdio: ['ignore', log, log],
        ...(runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {}),
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: paths.data, ...env, [DATABASE_MARKER]: markerValue(this.opts.accounts.installation, key) },
      });
    } finally {
      closeSync(log);
    }
    // Without a listener a failed spawn would crash the worker.
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new DriverError('retryable', `could not start ${bin} for ${key}`);
    writeFileSync(join(paths.dir, 'pid'), `${child.pid} ${readStat(child.pid)?.startTime ?? '0'}\n`, { mode: 0o600 });
    child.on('exit', () => this.exited(key));
    child.unref();
    return child.pid;
  }

  /** A spare that exits leaves the pool with its folder (and is replaced); a claimed one is reported as the server it became. */
  private exited(key: string): void {
    if (key.startsWith(SPARE_PREFIX) && !this.claimedAs.has(key)) {
      for (const pool of this.spares.values()) {
        const at = pool.findIndex((spare) => spare.key === key);
        if (at >= 0) pool.splice(at, 1)[0].link.close();
      }
      rmSync(this.paths(key).dir, { recursive: true, force: true });
      this.scheduleRefill(SPARE_RESTART_DELAY_MS);
      return;
    }
    const server = this.claimedAs.get(key) ?? key;
    this.claimedAs.delete(key);
    for (const listener of this.exitListeners) listener(server);
  }

  private async waitUntilUp(pid: number, paths: ServerPaths, what: string, probe: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + this.opts.startTimeoutMs;
    let interval = READY_POLL_MIN_MS;
    while (Date.now() < deadline) {
      if (!isAlive(readStat(pid))) {
        throw new DriverError('invalid', `${what} server exited while starting; last output: ${this.tail(paths)}`);
      }
      if (await probe().catch(() => false)) return;
      await sleep(interval);
      interval = Math.min(POLL_MS, interval + 1);
    }
    throw new DriverError('invalid', `${what} server did not accept connections within ${this.opts.startTimeoutMs} ms; last output: ${this.tail(paths)}`);
  }

  /** Stops the server with its engine's signal, then kills what is left of it and of everything it started. */
  private async stop(key: string): Promise<void> {
    const pid = this.runningPid(key);
    if (pid === null) return;
    const engine = this.opts.engines[key.split('-')[0] as DatabaseEngine];
    signalGroup(pid, engine?.stopSignal ?? 'SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (isAlive(readStat(pid)) && Date.now() < deadline) await sleep(POLL_MS * 2);
    killTree(pid, pid);
  }

  /** The server's pid when it runs: from the pid file, else from the process table. */
  private runningPid(key: string): number | null {
    try {
      const [pid, startTime] = readFileSync(join(this.paths(key).dir, 'pid'), 'utf8')
        .trim()
        .split(' ');
      const stat = readStat(Number(pid));
      if (isAlive(stat) && stat.startTime === startTime && stat.pgrp === stat.pid) return stat.pid;
    } catch {
      // no pid file
    }
    // Anyone can put the marker in an environment: only the database user's processes (or our own) are servers.
    const leader = scanMarkedLeaders(DATABASE_MARKER, this.opts.accounts.installation)
      .get(key)
      ?.find((l) => [process.getuid?.(), this.opts.accounts.databaseUserNow()?.uid].includes(processUid(l.pid) ?? -1));
    if (!leader) return null;
    try {
      writeFileSync(join(this.paths(key).dir, 'pid'), `${leader.pid} ${leader.startTime}\n`, { mode: 0o600 });
    } catch {
      // control folder gone; the caller stops it
    }
    return leader.pid;
  }

  private paths(key: string): ServerPaths {
    const dir = join(this.opts.dir, key);
    return { dir, data: join(dir, 'data'), run: join(dir, 'run'), log: join(dir, 'server.log') };
  }

  private tail(paths: ServerPaths, chars = 400): string {
    try {
      return JSON.stringify(readFileSync(paths.log, 'utf8').trim().slice(-chars));
    } catch {
      return '(no output)';
    }
  }
}
