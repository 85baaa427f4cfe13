// `npm start`: install what is missing, build, set up the database and the
// first project, then run the api, the worker and the edge until interrupted.
// Plain Node on purpose: it runs before anything is installed or built.
const { execSync, spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });

require('./ensure-deps');
console.log('[stratus] building...');
run('npx tsc -p tsconfig.build.json');
run('node -r ./scripts/paths.js dist/scripts/setup.js');

const children = ['api', 'worker', 'edge'].map((name) => {
  const child = spawn(process.execPath, ['-r', './scripts/paths.js', `dist/apps/${name}/src/main.js`], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  child.on('exit', (code, signal) => {
    console.error(`[stratus] ${name} exited (${signal ?? code}); stopping`);
    shutdown(code ?? 1);
  });
  return child;
});

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 5000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.on('exit', r))))).then(() => process.exit(code));
}
// package.json's start script execs this file, so the signal npm forwards on
// `kill <npm pid>` reaches it (a shell between them would die and leave all
// of this running); SIGHUP for a closed terminal.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => shutdown(0));

const host = process.env.API_HOST || '127.0.0.1';
const port = process.env.API_PORT || '8080';
const base = process.env.PUBLIC_URL || `http://${host}:${port}`;
(async () => {
  for (let i = 0; i < 200 && !stopping; i++) {
    try {
      if ((await fetch(`${base}/ready`)).ok) {
        console.log(`\n[stratus] up:\n  API          ${base}\n  OpenAPI      ${base}/docs (JSON: ${base}/docs/json)\n  Queues       ${base}/admin/queues (user operator)\n  Proxy hosts  http://<name>.${process.env.DNS_DOMAIN_SUFFIX || 'localhost'}:${process.env.EDGE_HTTP_PORT || '8081'}/\n  Credentials  ${join(process.env.DATA_DIR || join(root, '.data'), 'credentials.json')}\n`);
        if (!['true', '1'].includes(process.env.PUBLIC_ENDPOINTS_REQUIRE_AUTH || '')) {
          console.log(
            '[stratus] PUBLIC_ENDPOINTS_REQUIRE_AUTH is off (the default; the interface marks these endpoints public): anyone who can reach the API can delete any\n' +
              "  gateway route and list, read, change or delete any proxy host without a token. Set it to true when others can reach it.\n",
          );
        }
        return;
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
})();
