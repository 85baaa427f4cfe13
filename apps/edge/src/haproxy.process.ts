import { lookupUser } from '@stratus/core';
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runtimeCommand } from './haproxy.runtime';

export type EdgeLog = (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;

export interface HaproxyProcessOptions {
  /** Its files live here: `<name>.cfg`, `<name>.pid` and, when the path is short enough, `<name>.sock`. */
  dir: string;
  name: string;
  log?: EdgeLog;
  /** HAProxy's warnings about what the owner itself asked for (a paused frontend...): not logged. */
  routine?: RegExp;
  /** A serving HAProxy exited on its own: the owner decides when to start it again. */
  onCrash?: () => void;
}

const BINARIES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];
const START_TIMEOUT_MS = 15_000;
/** Unix socket paths are limited to 108 bytes. */
const SOCKET_PATH_MAX = 100;
/** HAProxy's dump of every server's state on SIGHUP (a closed terminal): a line per port, and its announcement; not news. */
const SIGHUP_DUMP = /SIGHUP( received|: (Server|Proxy) )/;

/**
 * HAProxy processes still running when the edge exits without having
 * stopped them (its stop timed out, or it failed) go with it: nothing else
 * would stop them before the next edge starts.
 */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * One HAProxy process the edge runs: started from a configuration the owner
 * renders, up once its runtime API answers, stopped on close. It outlives
 * neither its owner (close) nor a crashed edge (the next start stops the
 * one its pid file names, recognised by its configuration path).
 */
export class HaproxyProcess {
  readonly config: string;
  /** The runtime API (admin level, mode 600). */
  readonly socket: string;
  private readonly pidFile: string;
  private child: ChildProcess | null = null;
  private state: string | null = null;

  constructor(private readonly opts: HaproxyProcessOptions) {
    this.config = join(opts.dir, `${opts.name}.cfg`);
    this.pidFile = join(opts.dir, `${opts.name}.pid`);
    const socket = join(opts.dir, `${opts.name}.sock`);
    this.socket = socket.length <= SOCKET_PATH_MAX ? socket : join(tmpdir(), `stratus-${opts.name}-${createHash('sha256').update(opts.dir).digest('hex').slice(0, 16)}.sock`);
  }

  /** 'ok' while HAProxy serves, 'starting', or why it does not; null before the first start. */
  get status(): string | null {
    return this.state;
  }

  get serving(): boolean {
    return this.child !== null && this.state === 'ok';
  }

  /** One runtime API command; its answer. */
  command(command: string, timeoutMs?: number): Promise<string> {
    return runtimeCommand(this.socket, command, timeoutMs);
  }

  /** (Re)starts HAProxy on `configText`; resolves with 'ok' or why it is not serving (HAProxy's own alert when it has one). */
  async start(configText: string): Promise<string> {
    await this.stop();
    await this.stopStale();
    const bin = BINARIES.find((b) => existsSync(b));
    if (!bin) return (this.state = 'haproxy is not installed (scripts/ensure-system-packages.sh installs it)');
    writeFileSync(this.config, configText, { mode: 0o600 });
    rmSync(this.socket, { force: true });

    // In the edge's process group and session, not detached: in a session of
    // its own (the kernel's scheduler autogroups by session) host routing is
    // markedly slower (bench/README.md, "HAProxy in a session of its own").
    // So a terminal's Ctrl-C reaches it beside the edge; see the exit below.
    const child = spawn(bin, ['-f', this.config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      output = (output + d).slice(-4_000);
      for (const line of d.split('\n')) {
        if (/\[(ALERT|WARNING)\]/.test(line) && !this.opts.routine?.test(line) && !SIGHUP_DUMP.test(line)) {
          this.opts.log?.('warn', 'haproxy', { haproxy: this.opts.name, line: line.trim() });
        }
      }
    });
    let exited: string | null = null;
    child.on('error', (err) => (exited = err.message));
    child.on('exit', (code, signal) => {
      exited ??= `haproxy exited (${signal ?? code})`;
      if (this.child !== child) return;
      this.child = null;
      const wasServing = this.state === 'ok';
      this.state = exited;
      // One that never started is retried by the owner's next attempt, not in a loop here.
      if (!wasServing) return;
      // Ctrl-C or a hang-up of the terminal it runs in (the edge gets it too, and stops): not a crash,
      // though the owner starts it again all the same unless it is closing by then.
      const fromTerminal = signal === 'SIGINT' || signal === 'SIGHUP';
      this.opts.log?.(fromTerminal ? 'info' : 'error', fromTerminal ? 'haproxy stopped by a signal from the terminal' : 'haproxy exited', {
        haproxy: this.opts.name,
        code,
        signal,
      });
      this.opts.onCrash?.();
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    if (child.pid !== undefined) writeFileSync(this.pidFile, `${child.pid}\n`);
    this.child = child;
    this.state = 'starting';

    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited !== null) return (this.state = alertOf(output) ?? exited);
      if (
        await this.command('show info', 1_000).then(
          (a) => a.includes('Pid:'),
          () => false,
        )
      )
        return (this.state = 'ok');
      await sleep(20);
    }
    await this.stop();
    return (this.state = `haproxy did not start within ${START_TIMEOUT_MS} ms: ${output.trim().split('\n').pop() ?? ''}`);
  }

  async stop(): Promise<void> {
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

  /**
   * An HAProxy of an edge that died without stopping it holds our ports:
   * ours by its config path, so stop it. (Done by start; only before one,
   * never on the way out, when the pid file may name a newer edge's.)
   */
  async stopStale(): Promise<void> {
    let pid: number;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return;
    }
    const ours = () => {
      try {
        return pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(this.config);
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
 * creates (as its own service does), once it holds its listeners and runtime
 * socket: the process that parses what clients send is not root. Elsewhere
 * it keeps the edge's own user.
 */
export function haproxyUser(): { uid: number; gid: number } | null {
  return process.getuid?.() === 0 ? lookupUser('haproxy') : null;
}
