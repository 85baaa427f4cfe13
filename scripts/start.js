// `npm start`: install what is missing, build, set up the database and the
// first project, then run the api, the worker and the edge until interrupted,
// starting again whichever of them exits on its own.
// Plain Node on purpose: it runs before anything is installed or built.
const { execSync, spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });
const log = (msg) => console.error(`[stratus] ${msg}`);

/** Wait before the first restart after a crash; doubled for each crash that follows soon after. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;
/** A process that ran this long was healthy: its next crash restarts it after RESTART_FIRST_MS again. */
const HEALTHY_UPTIME_MS = 60_000;
/** How long a stop waits for the processes before it kills them. */
const STOP_TIMEOUT_MS = 10_000;

require('./ensure-deps');
console.log('[stratus] building...');
run('npx tsc -p tsconfig.build.json');
run('node -r ./scripts/paths.js dist/scripts/setup.js');

/**
 * Each of the three runs on its own: the edge (and its HAProxy processes)
 * serves routes and proxy hosts with the api and the worker gone, so one
 * process crashing must not take the others down. A crashed one is started
 * again with exponential backoff, so one that cannot boot (PostgreSQL down,
 * a port taken) retries without spinning.
 */
const services = ['api', 'worker', 'edge'].map((name) => ({ name, child: null, startedAt: 0, delay: RESTART_FIRST_MS, timer: null }));

function launch(service) {
  const child = spawn(process.execPath, ['-r', './scripts/paths.js', `dist/apps/${service.name}/src/main.js`], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
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
function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping api, worker and edge`);
  for (const s of services) {
    if (s.timer) clearTimeout(s.timer);
    if (running(s.child)) s.child.kill('SIGTERM');
  }
  const exits = services.map((s) => (running(s.child) ? new Promise((r) => s.child.once('exit', r)) : null));
  setTimeout(() => {
    const left = services.filter((s) => running(s.child));
    log(`still running after ${seconds(STOP_TIMEOUT_MS)}: ${left.map((s) => s.name).join(', ')}; killing`);
    for (const s of left) s.child.kill('SIGKILL');
    process.exit(1);
  }, STOP_TIMEOUT_MS).unref();
  Promise.all(exits).then(() => process.exit(0));
}
// package.json's start script execs this file, so the signal npm forwards on
// `kill <npm pid>` reaches it (a shell between them would die and leave all
// of this running); SIGHUP for a closed terminal. Nothing else stops the
// whole: a child's exit is a crash to recover from.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => shutdown(signal));

for (const s of services) launch(s);

const host = process.env.API_HOST || '127.0.0.1';
const port = process.env.API_PORT || '8080';
const base = process.env.PUBLIC_URL || `http://${host}:${port}`;
(async () => {
  while (!stopping) {
    try {
      if ((await fetch(`${base}/ready`)).ok) {
        console.log(
          `\n[stratus] up:\n  API          ${base}\n  OpenAPI      ${base}/docs (JSON: ${base}/docs/json)\n  Queues       ${base}/admin/queues (user operator)\n  Proxy hosts  http://<name>.${process.env.DNS_DOMAIN_SUFFIX || 'localhost'}:${process.env.EDGE_HTTP_PORT || '8081'}/\n  Credentials  ${join(process.env.DATA_DIR || join(root, '.data'), 'credentials.json')}\n`,
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
})();
