import { FreshHost, REPO_ROOT, removeInstallationAccounts, testEnv, waitFor } from '@stratus/testing';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The environment of a new user's shell: none of the test installation's settings, DATABASE_URL and REDIS_URL unset. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'QUEUE_PREFIX', 'LOCAL_ADDRESS_POOL', 'GATEWAY_PORT_RANGE', 'API_PORT', 'EDGE_HTTP_PORT', 'NODE_ENV']) delete env[name];
  return env;
}

/** `npm start` to its exit: exit code and everything it printed. */
function startToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [npm.stdout, npm.stderr]) stream.on('data', (d: Buffer) => (output += d.toString()));
    npm.once('exit', (code) => resolve({ code, output }));
  });
}

const STACK_FRAME = /^\s+at .+\(.+:\d+:\d+\)$/m;

/**
 * `npm start` on a host with no PostgreSQL and no Redis at the defaults (a
 * network namespace of its own: the machine's servers are not there) comes
 * up on embedded servers it runs and restarts itself, and a managed
 * database answers psql; a wrong explicit URL is one line naming it.
 */
describe('npm start with nothing at the default DATABASE_URL and REDIS_URL', () => {
  jest.setTimeout(240_000);
  const dataDir = `${testEnv().DATA_DIR}-embedded`;
  let host: FreshHost;
  let key: string;
  const api = (path: string, args = '') => host.sh(`curl -s -w '\\n%{http_code}' ${args} -H "x-api-key: ${key}" http://127.0.0.1:8080${path}`);
  const json = async (path: string, args = '') => {
    const res = await api(path, args);
    const lines = res.stdout.trimEnd().split('\n');
    return { status: Number(lines.pop()), body: JSON.parse(lines.join('\n') || 'null') };
  };

  beforeAll(async () => {
    await removeInstallationAccounts(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    host = await FreshHost.start('npm start', { cwd: REPO_ROOT, env: userEnv({ DATA_DIR: dataDir }) });
    await waitFor('npm start to say the system is up', () => host.child.exitCode === null && host.output.includes('[stratus] up:'), { timeoutMs: 200_000, intervalMs: 200 });
    key = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).api_key;
  }, 240_000);

  afterAll(async () => {
    await host?.destroy(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says it runs an embedded PostgreSQL and Redis under DATA_DIR, as the database user', () => {
    expect(host.output).toContain(`made an embedded PostgreSQL 16 in ${join(dataDir, 'embedded', 'postgres')}`);
    expect(host.output).toContain(`runs an embedded Redis with its data in ${join(dataDir, 'embedded', 'redis')}`);
    const servers = host.pids().filter((pid) => /embedded\/(postgres|redis)|redis-server/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
    const postgres = Number(/embedded postgres started \(pid (\d+)\)/.exec(host.output)?.[1]);
    const redis = Number(/embedded redis started \(pid (\d+)\)/.exec(host.output)?.[1]);
    expect(servers).toEqual(expect.arrayContaining([postgres, redis]));
    // Neither runs as root (postgres would refuse to).
    for (const pid of [postgres, redis]) expect(readFileSync(`/proc/${pid}/status`, 'utf8')).not.toMatch(/^Uid:\s+0\s/m);
  });

  it('makes a managed PostgreSQL that psql answers with the credentials the create returned', async () => {
    const created = await json(
      '/v1/databases',
      `-X POST -H 'content-type: application/json' -d '{"name":"orders","flavor_id":"db.small","network_id":"private","keypair_name":"default"}'`,
    );
    expect(created.status).toBe(202);
    const ready = await waitFor(
      'the database to be ready',
      async () => {
        const got = await json(`/v1/databases/${created.body.id}`);
        return got.body.status === 'ready' && got.body;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const psql = await host.sh(`psql "postgres://appuser:${created.body.db_password}@${ready.floating_ip}:5432/app" -Atc 'select 40 + 2'`);
    expect(psql).toMatchObject({ code: 0, stdout: '42\n' });
  });

  it('restarts an embedded server that crashed, and the api answers again', async () => {
    const postgres = Number(/embedded postgres started \(pid (\d+)\)/.exec(host.output)?.[1]);
    process.kill(postgres, 'SIGKILL');
    await waitFor('postgres to be restarted', () => /\[stratus\] postgres restarted \(pid \d+\)/.test(host.output), { timeoutMs: 60_000 });
    await waitFor('the api to list databases again', async () => (await json('/v1/databases')).status === 200, { timeoutMs: 60_000, intervalMs: 250 });
  });

  it('stops the embedded servers with the rest', async () => {
    const servers = host.pids().filter((pid) => /embedded\/(postgres|redis)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
    expect(servers.length).toBeGreaterThanOrEqual(2);
    host.child.kill('SIGTERM');
    expect(await host.exited).toBe(0);
    await waitFor('the embedded servers to be gone', () => servers.every((pid) => !host.pids().includes(pid)), { timeoutMs: 60_000 });
  });
});

describe('npm start with an explicit URL that does not answer', () => {
  jest.setTimeout(120_000);
  const dataDir = `${testEnv().DATA_DIR}-wrong-url`;
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const [name, url, shown] of [
    ['DATABASE_URL', 'postgres://postgres:secret@127.0.0.1:1/stratus', 'postgres://postgres:***@127.0.0.1:1/stratus'],
    ['REDIS_URL', 'redis://127.0.0.1:1', 'redis://127.0.0.1:1'],
  ]) {
    it(`${name}: one line naming it, no stack trace, exit 1`, async () => {
      const { code, output } = await startToExit({ ...userEnv({ DATA_DIR: dataDir }), [name]: url, STRATUS_SKIP_SYSTEM_PACKAGES: '1' });
      expect(code).toBe(1);
      const ours = output.split('\n').filter((line) => line.startsWith('[stratus]') && !line.includes('building'));
      expect(ours).toEqual([expect.stringMatching(new RegExp(`^\\[stratus\\] ${name}=${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not answer \\(.*ECONNREFUSED.*\\); `))]);
      expect(output).not.toContain('secret');
      expect(output).not.toMatch(STACK_FRAME);
    });
  }
});
