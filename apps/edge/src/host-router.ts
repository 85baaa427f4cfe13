import { lookupUser } from '@stratus/core';
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostSpec } from './edge.messages';
import { HAPROXY_LUA, HaproxyFiles, renderHaproxyConfig, renderHostMap } from './haproxy.config';
import { replaceMap, runtimeCommand } from './haproxy.runtime';

export interface HostRouterOptions {
  /** HAProxy's files live here (config, map, Lua, pid). */
  dir: string;
  /** HAProxy threads. */
  threads: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;
}

const BINARIES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];
const START_TIMEOUT_MS = 10_000;
const RESTART_DELAY_MS = 1_000;
/** Unix socket paths are limited to 108 bytes. */
const SOCKET_PATH_MAX = 100;

/**
 * The HTTP listener for proxy hosts: an HAProxy process the edge writes the
 * configuration of, starts, and keeps running (haproxy.config.ts says what
 * it does with a request). Proxy hosts change through HAProxy's runtime API
 * without a reload; the listener's address changes by a restart. HAProxy
 * outlives neither the router (close) nor a crashed edge (the next start
 * stops the one its pid file names).
 */
export class HostRouter {
  private readonly files: HaproxyFiles;
  private readonly pidFile: string;
  private child: ChildProcess | null = null;
  private where: { host: string; port: number } | null = null;
  private state: string | null = null;
  private lines: string[] = [];
  private closed = false;
  /** listen and setHosts run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: HostRouterOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    const socket = join(opts.dir, 'haproxy.sock');
    this.files = {
      config: join(opts.dir, 'haproxy.cfg'),
      map: join(opts.dir, 'hosts.map'),
      lua: join(opts.dir, 'edge.lua'),
      socket:
        socket.length <= SOCKET_PATH_MAX ? socket : join(tmpdir(), `stratus-edge-${createHash('sha256').update(opts.dir).digest('hex').slice(0, 16)}.sock`),
    };
    this.pidFile = join(opts.dir, 'haproxy.pid');
  }

  /** 'ok' when HAProxy serves on the listener, else why not; null when there is no listener to have. */
  get status(): string | null {
    return this.state;
  }

  /** Binds (or rebinds) the listener; resolves with 'ok' or the reason it is not bound. */
  listen(where: { host: string; port: number } | null): Promise<string | null> {
    return this.serially(async () => {
      if (!where) return null;
      if (this.child && this.where?.host === where.host && this.where.port === where.port && this.state === 'ok') return this.state;
      this.where = where;
      return this.start();
    });
  }

  /** Sends each proxy host's name to its instance address and port from now on. */
  setHosts(hosts: HostSpec[]): Promise<void> {
    return this.serially(async () => {
      const lines = renderHostMap(hosts);
      if (lines.join('\n') === this.lines.join('\n')) return;
      // A running HAProxy changes in place; a (re)start loads the map file written from `lines`.
      if (this.child && this.state === 'ok') await replaceMap(this.files.socket, this.files.map, lines);
      // Only now: a failed replace is tried again with the next set, even an equal one.
      this.lines = lines;
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.serially(() => this.stop());
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async start(): Promise<string> {
    await this.stop();
    await this.stopStale();
    const where = this.where!;
    const bin = BINARIES.find((b) => existsSync(b));
    if (!bin) return (this.state = 'haproxy is not installed (scripts/ensure-system-packages.sh installs it)');
    // Read by HAProxy only as it starts, and written anew before every start.
    const write = (path: string, content: string) => writeFileSync(path, content, { mode: 0o600 });
    write(this.files.lua, HAPROXY_LUA);
    write(this.files.map, this.lines.map((l) => `${l}\n`).join(''));
    write(this.files.config, renderHaproxyConfig({ bind: where, threads: this.opts.threads, files: this.files, runAs: haproxyUser() }));
    rmSync(this.files.socket, { force: true });

    const child = spawn(bin, ['-f', this.files.config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      output = (output + d).slice(-4_000);
      for (const line of d.split('\n')) if (/\[(ALERT|WARNING)\]/.test(line)) this.opts.log?.('warn', 'haproxy', { line: line.trim() });
    });
    let exited: string | null = null;
    child.on('error', (err) => (exited = err.message));
    child.on('exit', (code, signal) => {
      exited ??= `haproxy exited (${signal ?? code})`;
      if (this.child !== child) return;
      this.child = null;
      const wasServing = this.state === 'ok';
      this.state = exited;
      // One that never started is retried by the next listen() (the edge's resync), not in a loop here.
      if (this.closed || !wasServing) return;
      this.opts.log?.('error', 'haproxy exited; starting it again', { code, signal });
      setTimeout(() => {
        if (!this.closed && !this.child && this.where) this.serially(() => this.start()).catch(() => undefined);
      }, RESTART_DELAY_MS).unref();
    });
    if (child.pid !== undefined) writeFileSync(this.pidFile, `${child.pid}\n`);
    this.child = child;
    this.state = 'starting';

    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited !== null) return (this.state = alertOf(output) ?? exited);
      if (await runtimeCommand(this.files.socket, 'show info', 1_000).then((a) => a.includes('Pid:'), () => false)) {
        return (this.state = 'ok');
      }
      await sleep(20);
    }
    await this.stop();
    return (this.state = `haproxy did not start within ${START_TIMEOUT_MS} ms: ${output.trim().split('\n').pop() ?? ''}`);
  }

  private async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killed = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
    if (!killed) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.pidFile, { force: true });
  }

  /** An HAProxy of an edge that died without stopping it holds the listener: ours by its config path, so stop it. */
  private async stopStale(): Promise<void> {
    let pid: number;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return;
    }
    const ours = () => {
      try {
        return pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(this.files.config);
      } catch {
        return false;
      }
    };
    if (ours()) {
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && ours(); i++) await sleep(20);
    }
    rmSync(this.pidFile, { force: true });
  }
}

/** HAProxy's own words for why it stopped, e.g. "cannot bind socket (Address already in use) [127.0.0.1:8081]". */
function alertOf(output: string): string | null {
  const alerts = output.split('\n').filter((l) => l.includes('[ALERT]'));
  const bind = alerts.find((l) => l.includes('cannot bind socket'));
  const line = bind ?? alerts[0];
  return line ? `haproxy: ${line.replace(/^.*?\[ALERT\]\s*(\(\d+\))?\s*:?\s*/, '').trim()}` : null;
}

/**
 * Run as root, HAProxy drops to the `haproxy` user the Debian package
 * creates (as its own service does), once it holds its listener and runtime
 * socket: the process that parses what clients send is not root. Elsewhere
 * it keeps the edge's own user.
 */
function haproxyUser(): { uid: number; gid: number } | null {
  return process.getuid?.() === 0 ? lookupUser('haproxy') : null;
}
