import {
  commandLine,
  descendantPids,
  freePort,
  freePortRange,
  HttpClient,
  processAlive,
  REPO_ROOT,
  resetTestInstallation,
  testEnv,
  waitFor,
} from '@stratus/testing';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm start` as an operator runs it: the whole system comes up on a first
 * start, and stopping npm (what a service manager or `kill` does) stops
 * everything it started, HAProxy and the worker's spare servers included.
 */
describe('npm start', () => {
  jest.setTimeout(180_000);

  it('brings up api, worker and edge with first credentials, and leaves nothing running once npm is stopped', async () => {
    const base = testEnv();
    const range = await freePortRange(10);
    // An installation of its own, so this first start does not meet the suite's.
    const overrides = {
      DATABASE_URL: `${base.DATABASE_URL}_start`,
      QUEUE_PREFIX: `${base.QUEUE_PREFIX}-start`,
      DATA_DIR: `${base.DATA_DIR}-start`,
      API_PORT: String(await freePort()),
      EDGE_HTTP_PORT: String(await freePort()),
      GATEWAY_PORT_RANGE: `${range.from}-${range.to}`,
    };
    await resetTestInstallation(overrides);

    const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env: { ...process.env, ...testEnv(overrides) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [npm.stdout!, npm.stderr!]) stream.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
    let tree: number[] = [];
    try {
      await waitFor('npm start to say the system is up', () => npm.exitCode === null && output.includes('[stratus] up:'), { timeoutMs: 150_000, intervalMs: 200 });

      const credentials = JSON.parse(readFileSync(join(overrides.DATA_DIR, 'credentials.json'), 'utf8'));
      expect(output).toContain(credentials.api_key);
      const api = new HttpClient(`http://127.0.0.1:${overrides.API_PORT}`).with({ 'x-api-key': credentials.api_key });
      expect((await api.get('/v1/flavors')).status).toBe(200);

      const commandLines = () => new Map(descendantPids(npm.pid!).map((pid) => [pid, commandLine(pid)]));
      const find = (text: string) => [...commandLines()].filter(([, cmd]) => cmd.includes(text)).map(([pid]) => pid);
      // Everything up: the edge's two HAProxy processes and the worker's spare Redis.
      await waitFor('the HAProxy processes and the spare Redis', () => find('haproxy').length === 2 && find('redis-server').length === 1, { timeoutMs: 30_000 });
      tree = [...commandLines().keys()];
      for (const app of ['api', 'worker', 'edge']) expect(find(`dist/apps/${app}/src/main.js`)).toHaveLength(1);

      npm.kill('SIGTERM');
      expect(await exited).toBe(0);
      await waitFor('every process npm start ran to be gone', () => tree.every((pid) => !processAlive(pid)), { timeoutMs: 20_000 });
      expect(output).not.toMatch(/haproxy exited/);
    } finally {
      // A failed run leaves nothing for the next one.
      for (const pid of [...descendantPids(npm.pid!), ...tree, npm.pid!]) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
