import { ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { removeInstallationAccounts } from './installation';
import { processAlive } from './processes';
import { waitFor } from './wait';

const exec = promisify(execFile);

/**
 * A command run as on a host where nothing else listens: in a network
 * namespace of its own (root, `unshare`), with only its loopback up. The
 * machine's PostgreSQL at 5432, its Redis at 6379 and every other
 * installation's ports are not there, so `npm start` with the defaults
 * meets what a new user's host shows, and the defaults (8080, 8081, the
 * gateway range) are free. Commands run in the same namespace with `sh`.
 */
export class FreshHost {
  output = '';
  readonly exited: Promise<number | null>;
  private constructor(
    readonly child: ChildProcess,
    readonly network: string,
  ) {
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => child.once('exit', resolve));
  }

  /** Starts `command` (a shell line) in a new network namespace, in `cwd` with `env`. */
  static async start(command: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<FreshHost> {
    // exec: the pid held is the command's own, so a signal to it is a signal to the command.
    const child = spawn('unshare', ['--net', 'sh', '-c', `ip link set lo up && exec ${command}`], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const own = readlinkSync('/proc/self/ns/net');
    const network = await waitFor(
      'the new network namespace',
      () => {
        try {
          const ns = readlinkSync(`/proc/${child.pid}/ns/net`);
          return ns !== own && ns;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, intervalMs: 5 },
    );
    return new FreshHost(child, network);
  }

  /** A shell command in the namespace: its output and exit code (never throws for a failed command). */
  async sh(command: string, opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await exec('nsenter', ['-t', String(this.child.pid), '-n', 'sh', '-c', command], {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 64 << 20,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
    }
  }

  /** Every process in the namespace (the command's tree, and what it left detached: instances, database servers). */
  pids(): number[] {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        try {
          return readlinkSync(`/proc/${pid}/ns/net`) === this.network;
        } catch {
          return false;
        }
      });
  }

  /** Kills everything in the namespace (which then goes) and removes the accounts of the installation in `dataDir`. */
  async destroy(dataDir?: string): Promise<void> {
    for (const pid of this.pids()) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    await waitFor('every process of the fresh host to be gone', () => this.pids().length === 0, { timeoutMs: 60_000 });
    if (dataDir) await removeInstallationAccounts(dataDir);
  }
}
