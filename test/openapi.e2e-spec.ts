import { TestStack } from '@stratus/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Routes that are not part of the API contract and so not in the document. */
const UNDOCUMENTED = [/^\/docs/, /^\/admin\/queues/];

describe('OpenAPI document', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
  });

  afterAll(() => stack?.stop());

  it('is served as HTML and JSON', async () => {
    const html = await stack.http.get('/docs');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    const json = await stack.http.get('/docs/json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toMatch(/^3\./);
  });

  it('lists exactly the routes the api serves', async () => {
    const doc = (await stack.http.get('/docs/json')).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();

    // Nest logs every route it maps at start-up: that is what is really served.
    const log = readFileSync(join(stack.logsDir, 'api.log'), 'utf8');
    const served = [...new Set([...log.matchAll(/Mapped \{([^,]+), (\w+)\} route/g)].map(([, path, method]) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`))]
      .filter((r) => !UNDOCUMENTED.some((re) => re.test(r.split(' ')[1])))
      .sort();

    expect(served.length).toBeGreaterThan(5);
    expect(documented).toEqual(served);
  });

  it('documents the request body of every create', async () => {
    const doc = (await stack.http.get('/docs/json')).body;
    const create = doc.paths['/v1/instances'].post;
    const ref = create.requestBody.content['application/json'].schema.$ref.split('/').pop();
    const schema = doc.components.schemas[ref];
    expect(schema.required.sort()).toEqual(['flavor_id', 'image_id', 'keypair_name', 'name', 'network_id']);
  });
});
