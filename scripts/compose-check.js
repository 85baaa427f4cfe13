// Checks a compose file where no container engine is needed: `node scripts/compose-check.js [file]`
// (default: the project's docker-compose.yml). With `docker compose` on the
// machine it also runs `docker compose config -q`, the real parser; without
// it, the Compose Specification's JSON schema (the copy dclint ships and
// keeps current) stands in, and the output says so. On top of either: the
// rules of this project that no schema states (a healthcheck on every
// service that runs, dependencies that exist).
// Plain Node, like the other scripts that run outside the build.
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = join(__dirname, '..');

/** Whether `docker compose` (the plugin, not just the docker CLI) is there. */
function composeAvailable() {
  const r = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0;
}

/** `docker compose config -q` on the file, paths relative to the project folder: null when it passes, else its complaint. */
function engineProblem(file) {
  const r = spawnSync('docker', ['compose', '-f', file, '--project-directory', root, 'config', '-q'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? null : `docker compose config: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`;
}

/** YAML and the Compose Specification schema; dclint's style rules are not ours, so only these two are kept. */
function schemaProblems(file) {
  const { DCLinter } = require('dclint');
  const linter = new DCLinter({ rules: {}, quiet: true, debug: false, exclude: [] });
  const [result] = linter.lintFiles([file], false);
  return result.messages.filter((m) => ['invalid-yaml', 'invalid-schema', 'unknown-error'].includes(m.rule)).map((m) => `${m.rule} (line ${m.line}): ${m.message}`);
}

/**
 * What this project asks of its compose file beyond the schema:
 * - every service has a healthcheck with a test, not disabled, so that
 *   `depends_on: service_healthy` means something and `docker compose ps`
 *   says which process is down; a one-shot job that others await with
 *   `service_completed_successfully` is exempt, as it has nothing to probe;
 * - `depends_on` and `network_mode: service:X` name services that exist, and
 *   `service_healthy` only services with a healthcheck.
 */
function projectProblems(doc) {
  const problems = [];
  const services = doc && typeof doc.services === 'object' && doc.services ? doc.services : {};
  const names = Object.keys(services);
  if (names.length === 0) problems.push('no services');
  const deps = (svc) => {
    const d = svc && svc.depends_on;
    if (Array.isArray(d)) return d.map((name) => ({ name, condition: 'service_started' }));
    return d && typeof d === 'object' ? Object.entries(d).map(([name, v]) => ({ name, condition: (v && v.condition) || 'service_started' })) : [];
  };
  const jobs = new Set(
    names.flatMap((n) =>
      deps(services[n])
        .filter((d) => d.condition === 'service_completed_successfully')
        .map((d) => d.name),
    ),
  );
  const healthchecked = (svc) => {
    const h = svc && svc.healthcheck;
    if (!h || h.disable === true) return false;
    const test = Array.isArray(h.test) ? h.test : typeof h.test === 'string' ? [h.test] : [];
    return test.length > 0 && test[0] !== 'NONE';
  };
  for (const name of names) {
    const svc = services[name] || {};
    if (!jobs.has(name) && !healthchecked(svc)) problems.push(`service ${name} has no healthcheck`);
    for (const d of deps(svc)) {
      if (!(d.name in services)) problems.push(`service ${name} depends on ${d.name}, which is not a service`);
      else if (d.condition === 'service_healthy' && !healthchecked(services[d.name])) problems.push(`service ${name} waits for ${d.name} to be healthy, which has no healthcheck`);
    }
    const mode = typeof svc.network_mode === 'string' ? /^service:(.+)$/.exec(svc.network_mode) : null;
    if (mode && !(mode[1] in services)) problems.push(`service ${name} joins the network of ${mode[1]}, which is not a service`);
  }
  return problems;
}

/**
 * Every problem found in `file` (empty: it passes) and which checks ran.
 * `engine` forces `docker compose` on or off; by default it is used when there.
 */
function checkCompose(file, { engine = composeAvailable() } = {}) {
  const path = resolve(file);
  const checkedBy = [];
  const problems = [];
  if (engine) {
    checkedBy.push('docker compose config -q');
    const p = engineProblem(path);
    if (p) problems.push(p);
  }
  checkedBy.push('Compose Specification schema (dclint)');
  problems.push(...schemaProblems(path));
  const YAML = require('yaml');
  let doc = null;
  try {
    // Merge keys (`<<: *anchor`) as Compose reads them.
    doc = YAML.parse(readFileSync(path, 'utf8'), { merge: true });
  } catch (err) {
    if (!problems.some((p) => p.startsWith('invalid-yaml'))) problems.push(`invalid-yaml: ${err.message}`);
  }
  if (doc !== null) {
    checkedBy.push('project rules (healthchecks, dependencies)');
    problems.push(...projectProblems(doc));
  }
  return { engine, checkedBy, problems };
}

module.exports = { checkCompose, composeAvailable, projectProblems };

if (require.main === module) {
  const file = process.argv[2] || join(root, 'docker-compose.yml');
  const engine = composeAvailable();
  if (!engine) console.log('docker compose is not available here: not run; checking against the Compose Specification schema instead');
  const { checkedBy, problems } = checkCompose(file, { engine });
  console.log(`${file}: checked by ${checkedBy.join(', ')}`);
  for (const p of problems) console.log(`  ${p}`);
  console.log(problems.length === 0 ? 'ok' : `${problems.length} problem(s)`);
  process.exit(problems.length === 0 ? 0 : 1);
}
