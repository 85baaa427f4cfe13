// `npm start`: install what is missing, build, start an embedded PostgreSQL
// and Redis where none is configured or answering (scripts/embedded.ts), set
// up the database and the first project, then run the api, the worker(s) and
// the edge until interrupted, starting again whichever of them (embedded
// servers included) exits on its own.
// Plain Node on purpose: it runs before anything is installed or built.
const { execSync, spawn, spawnSync } = require('node:child_process');
const { connect } = require('node:net');
const { join } = require('node:path');

const root = join(__dirname, '..');
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });
const log = (msg) => console.error(`[stratus] ${msg}`);

/** Wait before the first restart after a crash; doubled for each crash that follows soon after. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;
/** A process that ran this long was healthy: its next crash restarts it after RESTART_FIRST_MS again. */
const HEALTHY_UPTIME_MS = 60_000;
/**
 * How many api and worker processes run: `--api-processes=N` and
 * `--worker-processes=N` (after `npm start --`), else API_PROCESSES and
 * WORKER_PROCESSES, else one each. The api's processes share its port
 * (node:cluster, inside the api); each worker is a process of its own here.
 */
const counts = { api: processCount('api-processes', 'API_PROCESSES'), worker: processCount('worker-processes', 'WORKER_PROCESSES') };
// The api reads its count itself (it runs the cluster), whichever way it was given.
process.env.API_PROCESSES = String(counts.api);

/**
 * How long a stop waits for the processes before it kills them: their own
 * bound (SHUTDOWN_TIMEOUT_MS, in which requests and jobs under way finish)
 * and a little for closing their connections and exiting.
 */
const SHUTDOWN_TIMEOUT_MS = /^\d+$/.test(process.env.SHUTDOWN_TIMEOUT_MS || '') ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : 10_000;
const STOP_TIMEOUT_MS = SHUTDOWN_TIMEOUT_MS + 5_000;

/** A count of processes from `--<flag>=N` or the variable `name`; a bad one stops the start here, naming it. */
function processCount(flag, name) {
  const given = process.argv.find((a) => a.startsWith(`--${flag}=`));
  const value = given ? given.slice(flag.length + 3) : process.env[name];
  if (value === undefined || value === '') return 1;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64) {
    console.error(`[stratus] ${given ? `--${flag}` : name} must be a whole number from 1 to 64, not ${JSON.stringify(value)}`);
    process.exit(1);
  }
  return Number(value);
}

require('./ensure-deps');
console.log('[stratus] building...');
if (!attempt('npx tsc -p tsconfig.build.json')) process.exit(1);

/**
 * PostgreSQL and Redis: the servers DATABASE_URL and REDIS_URL name, or,
 * with a variable unset and nothing answering at its default address,
 * embedded servers under DATA_DIR/embedded that this process runs and
 * restarts like the others (scripts/embedded.ts decides and prints why).
 */
const plan = spawnSync(process.execPath, ['-r', './scripts/paths.js', 'dist/scripts/embedded.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (plan.status !== 0) process.exit(1);
const embedded = JSON.parse(plan.stdout).map((spec) => ({ name: spec.name, spec, child: null, startedAt: 0, delay: RESTART_FIRST_MS, timer: null }));

/**
 * Each runs on its own: the edge (and its HAProxy processes) serves routes
 * and proxy hosts with the api and the workers gone, so one process crashing
 * must not take the others down. A crashed one is started again with
 * exponential backoff, so one that cannot boot (PostgreSQL down, a port
 * taken) retries without spinning. Workers share the queues through Redis
 * (BullMQ's locks give each job to one of them), so more of them need
 * nothing but more processes; there is one edge per host.
 */
const workerNames = counts.worker === 1 ? ['worker'] : Array.from({ length: counts.worker }, (_, i) => `worker-${i + 1}`);
/**
 * Each worker's /metrics listener: WORKER_METRICS_LISTEN (default
 * 127.0.0.1:9464) for the first, the next ports for the others, so that
 * every worker can be scraped.
 */
function workerMetricsListen(index) {
  const listen = process.env.WORKER_METRICS_LISTEN || '127.0.0.1:9464';
  if (listen === 'off' || index === 0) return listen;
  const at = listen.lastIndexOf(':');
  return `${listen.slice(0, at)}:${Number(listen.slice(at + 1)) + index}`;
}
/** On OpenStack the cloud's load balancers serve routes and proxy hosts (AppConfig.edgeBalances): no edge. */
const edge = process.env.PROVIDER === 'openstack' ? [] : [{ name: 'edge', app: 'edge' }];
const services = [{ name: 'api', app: 'api' }, ...workerNames.map((name, i) => ({ name, app: 'worker', env: { WORKER_METRICS_LISTEN: workerMetricsListen(i) } })), ...edge].map(
  ({ name, app, env }) => ({
    name,
    app,
    env: env ?? {},
    spec: null,
    child: null,
    startedAt: 0,
    delay: RESTART_FIRST_MS,
    timer: null,
  }),
);

/** Runs a command in the foreground; false (its own output said why) when it failed. */
function attempt(cmd) {
  try {
    run(cmd);
    return true;
  } catch {
    return false;
  }
}

/** The child of one supervised service: an api, worker or edge, or an embedded server as the database user. */
function spawnService(service) {
  const spec = service.spec;
  if (!spec) {
    return spawn(process.execPath, ['-r', './scripts/paths.js', `dist/apps/${service.app}/src/main.js`], { cwd: root, stdio: 'inherit', env: { ...process.env, ...service.env } });
  }
  // The servers' own output goes to ours, prefixed, so a failed start shows why.
  const child = spawn(spec.bin, spec.args, {
    cwd: spec.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    ...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
  });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      for (const line of lines) if (line.trim()) console.error(`[${service.name}] ${line}`);
    });
  }
  return child;
}

function launch(service) {
  const child = spawnService(service);
  service.child = child;
  service.startedAt = Date.now();
  child.on('error', (err) => log(`${service.name} could not be run: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const uptime = Date.now() - service.startedAt;
    if (uptime >= HEALTHY_UPTIME_MS) service.delay = RESTART_FIRST_MS;
    const delay = service.delay;
    service.delay = Math.min(delay * 2, RESTART_MAX_MS);
    log(`${service.name} (pid ${child.pid}) exited (${signal ?? `code ${code}`}) after ${seconds(uptime)}; restarting in ${seconds(delay)}`);
    service.timer = setTimeout(() => {
      service.timer = null;
      if (stopping) return;
      launch(service);
      log(`${service.name} restarted (pid ${service.child.pid})`);
    }, delay);
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`;
const running = (child) => child !== null && child.exitCode === null && child.signalCode === null;

let stopping = false;
/** Stops the api, worker and edge, then the embedded servers they used; exits with `code`. */
function shutdown(signal, code = 0) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping ${[...services, ...embedded].map((s) => s.name).join(', ')}`);
  const stopAll = async (group, stopSignal) => {
    for (const s of group) {
      if (s.timer) clearTimeout(s.timer);
      if (running(s.child)) s.child.kill(s.spec?.stopSignal ?? stopSignal);
    }
    await Promise.all(group.map((s) => (running(s.child) ? new Promise((r) => s.child.once('exit', r)) : null)));
  };
  setTimeout(() => {
    const left = [...services, ...embedded].filter((s) => running(s.child));
    log(`still running after ${seconds(STOP_TIMEOUT_MS)}: ${left.map((s) => s.name).join(', ')}; killing`);
    for (const s of left) s.child.kill('SIGKILL');
    process.exit(1);
  }, STOP_TIMEOUT_MS).unref();
  // The servers last: the others close their connections to them on the way out.
  stopAll(services, 'SIGTERM')
    .then(() => stopAll(embedded, 'SIGTERM'))
    .then(() => process.exit(code));
}
// package.json's start script execs this file, so the signal npm forwards on
// `kill <npm pid>` reaches it (a shell between them would die and leave all
// of this running); SIGHUP for a closed terminal. Nothing else stops the
// whole: a child's exit is a crash to recover from.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => shutdown(signal));

/** True once the server answers: PostgreSQL a query (it accepts connections while it starts up, and refuses them then), Redis a connect. */
async function answers(spec) {
  if (spec.name === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ host: spec.host, port: spec.port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return new Promise((resolve) => {
    const socket = connect({ host: spec.host, port: spec.port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}

/** How long an embedded server may take to answer on its first start (initdb is done by then). */
const EMBEDDED_READY_TIMEOUT_MS = 60_000;

(async () => {
  for (const s of embedded) {
    launch(s);
    log(`embedded ${s.name} started (pid ${s.child.pid}) on ${s.spec.host}:${s.spec.port}`);
  }
  for (const s of embedded) {
    const deadline = Date.now() + EMBEDDED_READY_TIMEOUT_MS;
    while (!stopping && !(await answers(s.spec))) {
      if (Date.now() > deadline) {
        log(`embedded ${s.name} did not answer on ${s.spec.host}:${s.spec.port} within ${seconds(EMBEDDED_READY_TIMEOUT_MS)}`);
        return shutdown('no embedded server', 1);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (stopping) return;
  // Not spawnSync: a Ctrl-C during setup must still stop the embedded servers.
  const setup = spawn(process.execPath, ['-r', './scripts/paths.js', 'dist/scripts/setup.js'], { cwd: root, stdio: 'inherit' });
  const code = await new Promise((r) => setup.once('exit', r));
  if (code !== 0) return shutdown('setup failed', 1);
  if (stopping) return;
  for (const s of services) launch(s);
  await announce();
})();

const host = process.env.API_HOST || '127.0.0.1';
const port = process.env.API_PORT || '8080';
const base = process.env.PUBLIC_URL || `http://${host}:${port}`;
async function announce() {
  while (!stopping) {
    try {
      if ((await fetch(`${base}/ready`)).ok) {
        console.log(
          `\n[stratus] up:\n  API          ${base} (${counts.api} api, ${counts.worker} worker process${counts.worker === 1 ? '' : 'es'})\n  OpenAPI      ${base}/docs (JSON: ${base}/docs/json)\n  Queues       ${base}/admin/queues (user operator)\n  Proxy hosts  http://<name>.${process.env.DNS_DOMAIN_SUFFIX || 'localhost'}:${process.env.EDGE_HTTP_PORT || '8081'}/\n  Credentials  ${join(process.env.DATA_DIR || join(root, '.data'), 'credentials.json')}\n`,
        );
        if (!['true', '1'].includes(process.env.PUBLIC_ENDPOINTS_REQUIRE_AUTH || '')) {
          console.log(
            '[stratus] PUBLIC_ENDPOINTS_REQUIRE_AUTH is off (the default; the interface marks these endpoints public): anyone who can reach the API can delete any\n' +
              '  gateway route and list, read, change or delete any proxy host without a token. Set it to true when others can reach it.\n',
          );
        }
        return;
      }
    } catch {
      // Not up yet: asked again in 250 ms.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
