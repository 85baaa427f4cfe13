import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupUser, SystemUser } from '@stratus/core';
import { killTree } from '@stratus/providers';
import { Client } from 'pg';
import { REPO_ROOT } from './test-env';
import { accepts } from './sockets';
import { freePort } from './stack';
import { waitFor } from './wait';

/**
 * A server of the suite's own that a test may stop, restart empty or flush:
 * the machine's Redis and PostgreSQL are shared and must never be touched.
 */
abstract class OwnServer {
  protected child: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  abstract start(): Promise<void>;

  /** Stops the server (SIGTERM, SIGKILL after 10 s) and waits until its port refuses connections. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.gone(exited);
    clearTimeout(killer);
  }

  /** Waits for the server to exit and its port to refuse connections. */
  protected async gone(exited: Promise<unknown>): Promise<void> {
    await exited;
    this.child = null;
    await waitFor(`port ${this.port} to close`, async () => !(await accepts('127.0.0.1', this.port)), { timeoutMs: 10_000 });
  }

  protected async started(child: ChildProcess, what: string): Promise<void> {
    this.child = child;
    await waitFor(
      what,
      async () => {
        if (!this.running) throw new Error(`${what}: exited with ${child.exitCode ?? child.signalCode}`);
        return accepts('127.0.0.1', this.port);
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
  }
}

/** `redis-server` on a free loopback port with no persistence: every restart comes back empty. */
export class OwnRedis extends OwnServer {
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await this.started(child, `redis-server on ${this.port}`);
  }

  /** FLUSHALL, as an operator or a failover to an empty replica would. */
  flushAll(): void {
    execFileSync('redis-cli', ['-p', String(this.port), 'FLUSHALL']);
  }
}

/**
 * PostgreSQL from the npm package's binaries, run as the unprivileged
 * `user` (initdb and postgres refuse root), with trust for local clients.
 */
export class OwnPostgres extends OwnServer {
  private constructor(
    port: number,
    private readonly dir: string,
    private readonly uid: number,
    private readonly gid: number,
  ) {
    super(port);
  }

  /** PostgreSQL refuses to run as root: it runs as `user`, a system account made on first use. */
  static async start(user = 'stratus-test-pg'): Promise<OwnPostgres> {
    const { uid, gid } = lookupUser(user) ?? makeSystemUser(user);
    const dir = mkdtempSync(join(tmpdir(), 'stratus-own-pg-'));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'data'), { mode: 0o700 });
    mkdirSync(join(dir, 'socket'), { mode: 0o700 });
    chownSync(join(dir, 'data'), uid, gid);
    chownSync(join(dir, 'socket'), uid, gid);
    execFileSync(join(BIN, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], {
      uid,
      gid,
      stdio: 'ignore',
    });
    const pg = new OwnPostgres(await freePort(), dir, uid, gid);
    await pg.start();
    return pg;
  }

  /** A database URL on this server. */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const args = ['-D', join(this.dir, 'data'), '-p', String(this.port), '-h', '127.0.0.1', '-k', join(this.dir, 'socket'), '-c', 'fsync=off'];
    const child = spawn(join(BIN, 'postgres'), args, { uid: this.uid, gid: this.gid, stdio: 'ignore' });
    await this.started(child, `postgres on ${this.port}`);
    // It takes connections before it takes queries ("the database system is starting up").
    await waitFor(
      `postgres on ${this.port} to answer a query`,
      async () => {
        if (!this.running) throw new Error(`postgres on ${this.port}: exited with ${child.exitCode ?? child.signalCode}`);
        const client = new Client({ connectionString: this.url('postgres') });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } catch {
          return false;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  }

  /**
   * Kills the server as a lost host would, postmaster and backends at once
   * (SIGKILL to the whole tree: each backend is a session of its own), and
   * waits until its port refuses connections. Its files stay: the next
   * `start` runs crash recovery on them.
   */
  async crash(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    killTree(child.pid);
    await this.gone(exited);
  }

  /** Stops the server and removes its files. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const BIN = join(REPO_ROOT, 'node_modules', 'pg16', 'native', 'bin');

function makeSystemUser(name: string): SystemUser {
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { stdio: 'pipe' });
  } catch (err) {
    // Made meanwhile by a suite of another slot.
    if (!lookupUser(name)) throw new Error(`cannot create system user ${name}: ${String((err as { stderr?: Buffer }).stderr ?? err)}`, { cause: err });
  }
  return lookupUser(name)!;
}
