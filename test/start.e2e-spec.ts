import {
  childPids,
  commandLine,
  DEMO_INSTANCE,
  freePort,
  freePortRange,
  HttpClient,
  instanceLeadersUnder,
  processAlive,
  REPO_ROOT,
  resetTestInstallation,
  secondInstallationPool,
  tearDownInstallationAt,
  testEnv,
  waitFor,
  waitForInstance,
} from '@stratus/testing';
import { descendantsOf, readStat } from '@stratus/providers';
import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** One GET on a new connection (what a client arriving now meets); resolves with the status and body. */
function fetchOnce(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Requests in a loop until stopped; counts what answered right and keeps what did not. */
function clientLoop(what: string, port: number, host: string, expected: string) {
  const state = { ok: 0, failures: [] as string[], failedAt: [] as number[], running: true };
  const fail = (why: string) => {
    state.failures.push(why);
    state.failedAt.push(Date.now());
  };
  const done = (async () => {
    while (state.running) {
      const at = new Date().toISOString();
      try {
        const res = await fetchOnce(port, host);
        if (res.status === 200 && res.body.includes(expected)) state.ok++;
        else fail(`${at} ${what}: ${res.status} ${res.body.slice(0, 200)}`);
      } catch (err) {
        fail(`${at} ${what}: ${(err as Error).message}`);
      }
      await sleep(10);
    }
  })();
  return Object.assign(state, {
    stop: async () => {
      state.running = false;
      await done;
    },
  });
}

/**
 * `npm start` as an operator runs it, as an installation of its own: the
 * whole system comes up on a first start, a crashed process is started
 * again while the data plane keeps serving, and stopping npm (what a
 * service manager or `kill` does) stops everything it started, HAProxy and
 * the worker's spare servers included.
 */
describe('npm start', () => {
  jest.setTimeout(180_000);

  let overrides: Record<string, string>;
  let npm: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let credentials: any;
  let api: HttpClient;

  /** start.js: npm execs it in the shell it runs the script with. */
  const supervisor = () => childPids(npm.pid!, 'scripts/start.js')[0];
  const servicePids = (app: string) => childPids(supervisor(), `dist/apps/${app}/src/main.js`);
  const commandLines = () => new Map(descendantsOf(npm.pid!).map((pid) => [pid, commandLine(pid)]));
  const find = (text: string) => [...commandLines()].filter(([, cmd]) => cmd.includes(text)).map(([pid]) => pid);
  const occurrences = (text: string) => output.split(text).length - 1;

  beforeAll(async () => {
    const base = testEnv();
    const range = await freePortRange(10);
    overrides = {
      DATABASE_URL: `${base.DATABASE_URL}_start`,
      QUEUE_PREFIX: `${base.QUEUE_PREFIX}-start`,
      DATA_DIR: `${base.DATA_DIR}-start`,
      API_PORT: String(await freePort()),
      EDGE_HTTP_PORT: String(await freePort()),
      GATEWAY_PORT_RANGE: `${range.from}-${range.to}`,
      LOCAL_ADDRESS_POOL: secondInstallationPool('start'),
    };
    await resetTestInstallation(overrides);

    // Output to a pipe, as to a log file: not a terminal.
    npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env: { ...process.env, ...testEnv(overrides) }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [npm.stdout!, npm.stderr!]) stream.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => npm.once('exit', resolve));
    await waitFor('npm start to say the system is up', () => npm.exitCode === null && output.includes('[stratus] up:'), { timeoutMs: 150_000, intervalMs: 200 });
    credentials = JSON.parse(readFileSync(join(overrides.DATA_DIR, 'credentials.json'), 'utf8'));
    api = new HttpClient(`http://127.0.0.1:${overrides.API_PORT}`).with({ 'x-api-key': credentials.api_key });
  }, 180_000);

  afterAll(async () => {
    // A failed run leaves nothing for the next one.
    if (npm?.pid) for (const pid of [...descendantsOf(npm.pid), npm.pid]) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    // HAProxy of an edge killed with nothing to replace it runs on under init; ours by its configuration's path.
    if (!overrides) return;
    const edgeDir = join(overrides.DATA_DIR, 'edge');
    for (const pid of readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)) {
      if (commandLine(pid).includes(edgeDir) && processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await tearDownInstallationAt(overrides.DATA_DIR);
  });

  it('brings up api, worker and edge; the first credentials go to credentials.json (0600), not to output that is not a terminal', async () => {
    expect(statSync(join(overrides.DATA_DIR, 'credentials.json')).mode & 0o777).toBe(0o600);
    for (const secret of [credentials.api_key, credentials.bearer_token, credentials.operator_password]) {
      expect(secret).toEqual(expect.any(String));
      expect(output).not.toContain(secret);
    }
    expect(output).toContain(`are in ${join(overrides.DATA_DIR, 'credentials.json')}`);
    expect((await api.get('/v1/flavors')).status).toBe(200);

    // Everything up: the edge's two HAProxy processes and the worker's spare Redis.
    await waitFor('the HAProxy processes and the spare Redis', () => find('haproxy').length === 2 && find('redis-server').length === 1, { timeoutMs: 60_000 });
    for (const app of ['api', 'worker', 'edge']) expect(servicePids(app)).toHaveLength(1);
  });

  describe('with traffic through a gateway route and a proxy host', () => {
    let instance: { id: string; metadata: Record<string, string> };
    let gatewayPort: number;
    let proxyHost: string;
    const loops = () => [clientLoop('gateway route', gatewayPort, 'gw', instance.id), clientLoop('proxy host', Number(overrides.EDGE_HTTP_PORT), proxyHost, instance.id)];
    /** Until every loop has had `count` more answers. */
    const answered = (running: ReturnType<typeof clientLoop>[], count: number) => {
      const from = running.map((l) => l.ok);
      return waitFor(`${count} more answers through each`, () => running.every((l, i) => l.ok >= from[i] + count), { timeoutMs: 60_000, intervalMs: 20 });
    };

    beforeAll(async () => {
      const created = await api.post('/v1/instances', { name: 'start-web', ...DEMO_INSTANCE });
      expect(created.status).toBe(202);
      instance = await waitForInstance(api, created.body.id);
      const cloud = new HttpClient(`http://127.0.0.1:${overrides.API_PORT}`).with({ authorization: `Bearer ${credentials.bearer_token}` });
      gatewayPort = (await cloud.get('/api/cloud/gateway/available-port')).body.port;
      const route = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port: gatewayPort });
      expect(route.status).toBe(200);
      const host = await cloud.post('/api/cloud/dns/create', { instanceId: instance.id, forwardPort: 3000 });
      expect(host.status).toBe(201);
      proxyHost = host.body.domain;
      await waitFor('the edge to route the proxy host', async () => (await fetchOnce(Number(overrides.EDGE_HTTP_PORT), proxyHost)).status === 200, { timeoutMs: 60_000 });
    });

    it('keeps serving through a SIGKILL of the worker and then of the api, and both come back', async () => {
      const running = loops();
      try {
        await answered(running, 20);

        const [worker] = servicePids('worker');
        const workerBoots = occurrences('worker started');
        const workerKilled = Date.now();
        process.kill(worker, 'SIGKILL');
        await waitFor(
          'a new worker to start',
          () => servicePids('worker').some((pid) => pid !== worker) && occurrences('worker started') > workerBoots,
          // Generous: on a loaded machine a Nest boot alone can take seconds. The figure is printed below.
          { timeoutMs: 60_000, intervalMs: 20 },
        );
        const workerBack = Date.now() - workerKilled;
        await answered(running, 20);

        const [apiPid] = servicePids('api');
        const apiKilled = Date.now();
        process.kill(apiPid, 'SIGKILL');
        // /ready answers only once the old api is gone and a new one listens.
        await waitFor('a new api to answer', async () => servicePids('api').some((pid) => pid !== apiPid) && (await api.get('/ready')).status === 200, {
          timeoutMs: 60_000,
          intervalMs: 20,
        });
        const apiBack = Date.now() - apiKilled;
        await answered(running, 20);

        process.stdout.write(`worker back after ${workerBack} ms, api after ${apiBack} ms; ${running.map((l) => l.ok).join(' + ')} answers\n`);
      } finally {
        await Promise.all(running.map((l) => l.stop()));
      }
      expect(running.flatMap((l) => l.failures)).toEqual([]);
      expect(output).toMatch(/\[stratus\] worker \(pid \d+\) exited \(SIGKILL\)/);
      expect(output).toMatch(/\[stratus\] api \(pid \d+\) exited \(SIGKILL\)/);
      for (const app of ['api', 'worker', 'edge']) expect(servicePids(app)).toHaveLength(1);

      // The restarted pair works as one: a create is built.
      const created = await api.post('/v1/instances', { name: 'after-restart', ...DEMO_INSTANCE, image_id: 'plain' });
      expect(created.status).toBe(202);
      await waitForInstance(api, created.body.id);
    });

    // The HAProxy processes of a killed edge keep serving until the next edge has
    // started and replaces them: connections are refused only while it does.
    it('restarts a SIGKILLed edge; routes serve again within seconds', async () => {
      const running = loops();
      let killed: number;
      try {
        await answered(running, 20);
        const [edge] = servicePids('edge');
        killed = Date.now();
        process.kill(edge, 'SIGKILL');
        await waitFor('a new edge', () => servicePids('edge').some((pid) => pid !== edge), { timeoutMs: 60_000, intervalMs: 20 });
        // Until both HAProxy processes are the new edge's.
        await waitFor('the new edge to run HAProxy', () => childPids(servicePids('edge')[0], 'haproxy').length === 2, { timeoutMs: 30_000, intervalMs: 20 });
        await answered(running, 50);
      } finally {
        await Promise.all(running.map((l) => l.stop()));
      }
      const lastFailure = Math.max(killed, ...running.flatMap((l) => l.failedAt));
      process.stdout.write(`edge: ${running.map((l) => l.failures.length).join(' + ')} failed requests, the last ${lastFailure - killed} ms after the kill\n`);
      // A bound, not a measurement (the line above prints that): routes come back once the new
      // edge's HAProxy serves, which on a loaded machine can take several seconds.
      expect(lastFailure - killed).toBeLessThan(30_000);
      expect(output).toMatch(/\[stratus\] edge \(pid \d+\) exited \(SIGKILL\)/);
    });
  });

  it('stops every process it ran once npm is stopped', async () => {
    // Instances are processes of their own (groups led by one) and keep running: the rest goes.
    const instances = new Set([...instanceLeadersUnder(join(overrides.DATA_DIR, 'instances')).values()].flat());
    const tree = descendantsOf(npm.pid!).filter((pid) => !instances.has(readStat(pid)?.pgrp ?? 0));
    expect(tree.length).toBeGreaterThanOrEqual(6);
    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    await waitFor('every process npm start ran to be gone', () => tree.every((pid) => !processAlive(pid)), { timeoutMs: 60_000 });
    expect(output).not.toMatch(/haproxy exited/);
  });
});
