import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

// compose-check.js is plain Node like the other scripts run outside the build (no types to import).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkCompose, composeAvailable } = require('./compose-check') as {
  checkCompose: (file: string, opts?: { engine?: boolean }) => { engine: boolean; checkedBy: string[]; problems: string[] };
  composeAvailable: () => boolean;
};

const project = join(__dirname, '..', 'docker-compose.yml');
const original = readFileSync(project, 'utf8');

describe('docker-compose.yml', () => {
  const engine = composeAvailable();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stratus-compose-'));
    // Said in the output, so a green run does not pass for one on a real engine.
    console.log(
      engine
        ? 'docker compose is available: each file is also run through `docker compose config -q`'
        : 'docker compose is not available here: `docker compose config -q` not run; checked against the Compose Specification schema',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A copy of the project's file, changed by `edit` on its parsed form (anchors and merge keys resolved). */
  function variant(name: string, edit: (doc: any) => void): string {
    const doc = YAML.parse(original, { merge: true });
    edit(doc);
    const file = join(dir, `${name}.yml`);
    writeFileSync(file, YAML.stringify(doc));
    return file;
  }

  it('passes every check', () => {
    const { checkedBy, problems } = checkCompose(project, { engine });
    expect(problems).toEqual([]);
    expect(checkedBy).toContain('Compose Specification schema (dclint)');
    if (engine) expect(checkedBy).toContain('docker compose config -q');
  });

  it('runs the whole system: postgres, redis, setup, api, worker, edge, each process its own service', () => {
    const doc = YAML.parse(original, { merge: true });
    expect(Object.keys(doc.services)).toEqual(expect.arrayContaining(['postgres', 'redis', 'setup', 'api', 'worker', 'edge']));
    for (const app of ['api', 'worker', 'edge']) {
      expect(doc.services[app].command.join(' ')).toContain(`dist/apps/${app}/src/main.js`);
      expect(doc.services[app].depends_on.setup.condition).toBe('service_completed_successfully');
    }
  });

  it('fails a copy the schema refuses', () => {
    const file = variant('broken-schema', (doc) => {
      doc.services.api.ports = 8080; // a list, not a number
      doc.services.edge.restart_policy = 'always'; // no such key
    });
    const { problems } = checkCompose(file, { engine });
    expect(problems.some((p) => p.startsWith('invalid-schema'))).toBe(true);
  });

  it('fails a copy that is not YAML', () => {
    const file = join(dir, 'not-yaml.yml');
    writeFileSync(file, original.replace('services:', 'services: [\n'));
    const { problems } = checkCompose(file, { engine });
    expect(problems.some((p) => p.startsWith('invalid-yaml'))).toBe(true);
  });

  it.each(['postgres', 'redis', 'api', 'worker', 'edge', 'net'])('fails a copy whose %s has no healthcheck', (service) => {
    const file = variant(`no-healthcheck-${service}`, (doc) => delete doc.services[service].healthcheck);
    const { problems } = checkCompose(file, { engine });
    expect(problems).toContain(`service ${service} has no healthcheck`);
  });

  it('fails a copy whose healthcheck is disabled', () => {
    const file = variant('healthcheck-disabled', (doc) => (doc.services.worker.healthcheck = { disable: true }));
    expect(checkCompose(file, { engine }).problems).toContain('service worker has no healthcheck');
  });

  it('fails a copy that waits on a service that does not exist', () => {
    const file = variant('missing-dependency', (doc) => (doc.services.api.depends_on.migrations = { condition: 'service_completed_successfully' }));
    expect(checkCompose(file, { engine }).problems).toContain('service api depends on migrations, which is not a service');
  });
});
