import { TestStack } from '@stratus/testing';
import { createApi } from '../apps/api/src/api.bootstrap';

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
    // Both from one api built in this process (the document as its /docs/json answers it), so
    // they come from the same code whatever state the compiled tree is in.
    const { routes, document } = await apiInProcess(stack.env);
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();

    const served = routes.filter((r) => !UNDOCUMENTED.some((re) => re.test(r.split(' ')[1]))).sort();

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

/**
 * The api built as its process builds it (createApi, on the stack's
 * settings), nothing listening: what it really serves, the routes its
 * Fastify instance gets, collected as Nest maps the controllers at init
 * rather than read back from its log; and its OpenAPI document, asked of it
 * by Fastify's inject.
 */
async function apiInProcess(env: Record<string, string>): Promise<{ routes: string[]; document: any }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const app = await createApi();
    const routes = new Set<string>();
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route) => {
        // HEAD (for every GET) and OPTIONS are Fastify's own, not routes the document describes.
        for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.add(`${method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
      });
    try {
      await app.init();
      const document = (await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/docs/json' })).json();
      return { routes: [...routes], document };
    } finally {
      await app.close();
    }
  } finally {
    process.env = saved;
  }
}
