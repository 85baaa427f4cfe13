import { canBind } from '@stratus/core';
import { ALL_QUEUES, QueueName, redisConnection } from '@stratus/queue';
import { Queue } from 'bullmq';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { HttpClient } from './http-client';
import { REPO_ROOT, testEnv } from './test-env';
import { waitFor } from './wait';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `count` consecutive ports on 127.0.0.1 that nothing has bound, at a random
 * place in 30000-32767: above the test slots' gateway ranges (2<slot>000-
 * 2<slot>999) and below the kernel's ephemeral ports.
 */
export async function freePortRange(count: number): Promise<{ from: number; to: number }> {
  const [low, high] = [30_000, 32_768 - count];
  for (let attempt = 0; attempt < 50; attempt++) {
    const from = low + Math.floor(Math.random() * (high - low + 1));
    const ports = Array.from({ length: count }, (_, i) => from + i);
    if ((await Promise.all(ports.map((p) => canBind('127.0.0.1', p)))).every(Boolean)) return { from, to: from + count - 1 };
  }
  throw new Error(`no ${count} free consecutive ports in 30000-32767`);
}

type Service = 'api' | 'worker' | 'edge';
/**
 * One running process of the stack: its service's name for the first (and
 * usually only) one, or a name of its own (`worker-2`) for more of a
 * service; its log is `<name>.log`.
 */
type ProcessName = Service | `${Service}-${string}`;

/**
 * The real system for end-to-end tests: the compiled api, worker and edge as
 * separate processes on the test database and queues. Their output goes to
 * DATA_DIR/logs, which the secret-leak checks read.
 */
export class TestStack {
  readonly env: Record<string, string>;
  readonly http: HttpClient;
  private readonly processes = new Map<ProcessName, ChildProcess>();

  private constructor(env: Record<string, string>) {
    this.env = env;
    this.http = new HttpClient(`http://127.0.0.1:${env.API_PORT}`);
  }

  static async start(overrides: Record<string, string> = {}, services: Service[] = ['api', 'worker']): Promise<TestStack> {
    const stack = new TestStack(testEnv({ API_PORT: String(await freePort()), EDGE_HTTP_PORT: String(await freePort()), ...overrides }));
    try {
      // On OpenStack the cloud's load balancers are the gateway and no edge runs (AppConfig.edgeBalances), as `npm start` does.
      for (const s of services) if (s !== 'edge' || stack.env.PROVIDER !== 'openstack') await stack.startService(s);
    } catch (err) {
      // Nobody else holds the stack yet to stop what did start.
      await stack.stop();
      throw err;
    }
    return stack;
  }

  get logsDir(): string {
    return join(this.env.DATA_DIR, 'logs');
  }

  /** The lines a process of the stack has written so far (every stack of the slot writes to the same logs). */
  logLines(name: ProcessName = 'worker'): string[] {
    const log = join(this.logsDir, `${name}.log`);
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
  }

  process(name: ProcessName): ChildProcess | undefined {
    return this.processes.get(name);
  }

  /** Starts `service` as the process `name` (a second worker: `startService('worker', 'worker-2')`), with `env` beside the stack's. */
  async startService(service: Service, name: ProcessName = service, env: Record<string, string> = {}): Promise<void> {
    mkdirSync(this.logsDir, { recursive: true });
    const log = createWriteStream(join(this.logsDir, `${name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, ['-r', './scripts/paths.js', `dist/apps/${service}/src/main.js`], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    this.processes.set(name, child);
    if (service === 'api') {
      await booted(child, 'the api to answer /ready', async () => (await this.http.get('/ready')).status === 200);
    } else if (service === 'edge') {
      // Up once it has applied what PostgreSQL holds (both HAProxy processes serve by then) and
      // reported so there: its heartbeat row, which it writes whatever LOG_LEVEL lets it print.
      const db = new Client({ connectionString: this.env.DATABASE_URL });
      await db.connect();
      try {
        await booted(child, 'the edge to start', async () => (await db.query('SELECT 1 FROM edge_nodes WHERE pid = $1', [child.pid])).rowCount === 1);
      } finally {
        await db.end();
      }
    } else {
      await waitFor('the worker to start', () => child.exitCode === null && child.pid !== undefined, { timeoutMs: 30_000 });
    }
  }

  /**
   * Waits until the worker has booted (its modules loaded, its queues
   * consumed): how long that takes depends on the machine, so a test that
   * kills the worker on a timer counts from here, not from the spawn.
   * Consumed means what Redis says, not what the worker prints: a BullMQ
   * worker's blocking connection is named after its queue, so every queue
   * has one once the processors run (a killed worker's are gone with it).
   * With several workers (`name` one of them), every queue must have as
   * many consumers as workers run.
   */
  async workerReady(timeoutMs = BOOT_TIMEOUT_MS, name: ProcessName = 'worker'): Promise<void> {
    const child = this.processes.get(name);
    if (!child) throw new Error(`${name} is not running`);
    const workers = [...this.processes.entries()].filter(([n, c]) => (n === 'worker' || n.startsWith('worker-')) && c.exitCode === null && c.signalCode === null).length;
    await this.withQueues(ALL_QUEUES, async (queues) => {
      const consumed = async () => (await Promise.all(queues.map((q) => q.getWorkersCount()))).every((n) => n >= workers);
      await booted(child, 'the worker to consume every queue', consumed, timeoutMs);
    });
  }

  /** Runs `use` with the stack's BullMQ queues of these names (its Redis and prefix), closed after. */
  async withQueues<T>(names: QueueName[], use: (queues: Queue[]) => Promise<T>): Promise<T> {
    const queues = names.map((name) => new Queue(name, { connection: redisConnection(this.env.REDIS_URL), prefix: this.env.QUEUE_PREFIX }));
    try {
      return await use(queues);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
  }

  /** Stops a process with `signal` and waits for it to be gone (SIGKILL after `timeoutMs`). */
  async stopService(name: ProcessName, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<void> {
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await Promise.race([exited, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    this.processes.delete(name);
  }

  /** Runs the operator CLI (`npm run cli -- ...`) against this stack's installation; returns its output. */
  cli(...args: string[]): string {
    return execFileSync(process.execPath, ['-r', './scripts/paths.js', 'dist/scripts/cli.js', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.stopService(name)));
  }
}

/**
 * How long a process may take to boot before a test gives up on it. A boot
 * is mostly module loading: ~2 s on an idle 2-core machine, 35 s seen on a
 * loaded one. Only a process that is still running is waited for.
 */
const BOOT_TIMEOUT_MS = 180_000;

/** Waits for `probe` while `child` runs; fails as soon as it exits, or after `timeoutMs`. */
async function booted(child: ChildProcess, what: string, probe: () => Promise<boolean> | boolean, timeoutMs = BOOT_TIMEOUT_MS): Promise<void> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const outcome = await waitFor(what, async () => (exited() ? 'exited' : (await probe()) && 'up'), { timeoutMs, intervalMs: 50 });
  if (outcome === 'exited') throw new Error(`${what}: it exited (${child.signalCode ?? `code ${child.exitCode}`}) first`);
}
