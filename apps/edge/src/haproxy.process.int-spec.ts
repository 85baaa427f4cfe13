import { freePort, processAlive, REPO_ROOT, waitFor } from '@stratus/testing';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** HaproxyProcess in a process of its own (the compiled one), as the edge runs it. */
describe('HaproxyProcess', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stratus-haproxy-'));
  });

  afterEach(() => {
    // One left behind by a failed run goes too.
    const pidFile = join(dir, 'left.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
    if (pid > 0 && processAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('an edge that exits without stopping its HAProxy takes it along', async () => {
    const port = await freePort();
    const script = `
      const { HaproxyProcess } = require('./dist/apps/edge/src/haproxy.process');
      const haproxy = new HaproxyProcess({ dir: ${JSON.stringify(dir)}, name: 'left' });
      const config = ['global', '  stats socket ' + haproxy.socket + ' mode 600 level admin', 'defaults', '  mode tcp',
        '  timeout connect 1s', '  timeout client 1s', '  timeout server 1s', 'listen l', '  bind 127.0.0.1:${port}', '  server s 127.0.0.1:1'].join('\\n') + '\\n';
      haproxy.start(config).then((status) => { console.log(status); process.exit(3); });
    `;
    const run = spawnSync(process.execPath, ['-r', './scripts/paths.js', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect([run.status, run.stdout.trim()]).toEqual([3, 'ok']);
    const pid = Number(readFileSync(join(dir, 'left.pid'), 'utf8'));
    await waitFor('the HAProxy it started to be gone', () => !processAlive(pid), { timeoutMs: 30_000, intervalMs: 20 });
  });
});
