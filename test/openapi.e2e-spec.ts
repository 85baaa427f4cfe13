import { getQueueToken } from '@nestjs/bullmq';
import { ALL_QUEUES } from '@stratus/queue';
import { TestStack } from '@stratus/testing';
import { Queue } from 'bullmq';
import { createApi } from '../apps/api/src/api.bootstrap';

import { createTenant, DB_PLACEMENT, DEMO_INSTANCE, recordIssuedPassword, Tenant, testDataSource, waitFor } from '@stratus/testing';
import { DataSource } from 'typeorm';
import { dataOf, ResponseChecker, StratusClient, stratusClient } from './openapi.client';

/** Routes that are not part of the API contract and so not in the document. */
const UNDOCUMENTED = [/^\/docs/, /^\/admin\/queues/];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Schema = Record<string, any>;

/** `METHOD /path` and the operation, for every operation of the document. */
function operationsOf(doc: Schema): Array<[string, Schema]> {
  return Object.entries<Schema>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m): [string, Schema] => [`${m.toUpperCase()} ${path}`, item[m]]));
}

async function waitActive(api: StratusClient, id: string) {
  return waitFor('the instance to be ACTIVE', async () => dataOf(await api.GET('/v1/instances')).find((i) => i.id === id && i.status === 'ACTIVE'), {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

/*
 * The stack runs the worker and the edge of the suite's installation (the
 * local provider, as every suite of this project: a fake worker on the same
 * installation would hand out addresses the local one also leases), so that
 * every operation, gateway routes included, can be called and answer its
 * success.
 */
describe('OpenAPI document', () => {
  let stack: TestStack;
  let db: DataSource;
  let owner: Tenant;
  let doc: Schema;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api', 'worker', 'edge']);
    db = await testDataSource();
    owner = await createTenant(db);
    doc = (await stack.http.get('/docs/json')).body;
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

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

  it('gives every operation a summary, a unique id, a tag, its security, one success with its body, and the error envelope', () => {
    const envelope = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeView' } } };
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [key, op] of operationsOf(doc)) {
      const path = key.split(' ')[1];
      if (!op.summary) problems.push(`${key}: no summary`);
      if (!op.operationId || ids.has(op.operationId)) problems.push(`${key}: no operationId, or one another operation has`);
      ids.add(op.operationId);
      if (!op.tags?.length) problems.push(`${key}: no tag`);
      // SPEC.md: /v1 takes x-api-key, /api/cloud a Bearer token (optional on its public routes), the rest nothing.
      const expected = path.startsWith('/v1/') ? [['api-key']] : path.startsWith('/api/cloud/') ? [['bearer']] : [];
      const security = (op.security as Schema[]).filter((s) => Object.keys(s).length > 0).map((s) => Object.keys(s));
      if (JSON.stringify(security) !== JSON.stringify(expected)) problems.push(`${key}: security ${JSON.stringify(op.security)}`);
      const success = Object.keys(op.responses).filter((s) => /^2/.test(s));
      if (success.length !== 1) problems.push(`${key}: success statuses ${success.join(', ') || 'none'}`);
      else if (success[0] !== '204' && !op.responses[success[0]].content?.['application/json']?.schema) problems.push(`${key}: ${success[0]} has no body schema`);
      for (const [status, response] of Object.entries<Schema>(op.responses)) {
        if (/^[45]/.test(status) && JSON.stringify(response.content) !== JSON.stringify(envelope)) problems.push(`${key}: ${status} is not the error envelope`);
      }
      if (!op.responses['500']) problems.push(`${key}: no 500`);
    }
    expect(problems).toEqual([]);
  });

  it('marks the public routes of SPEC.md as needing no credential', () => {
    const optional = operationsOf(doc)
      .filter(([, op]) => (op.security as Schema[]).some((s) => Object.keys(s).length === 0))
      .map(([key]) => key)
      .sort();
    expect(optional).toEqual(
      [
        'DELETE /api/cloud/gateway/routes/{port}',
        'GET /api/cloud/dns/list',
        'GET /api/cloud/dns/proxy-hosts/{proxyHostId}',
        'DELETE /api/cloud/dns/proxy-hosts/{proxyHostId}',
        'PUT /api/cloud/dns/proxy-hosts/{proxyHostId}',
      ].sort(),
    );
  });

  it('describes what every operation really answers: each called through the typed client, each answer checked against the document', async () => {
    const checker = await ResponseChecker.load(stack.http.baseUrl);
    const base = stack.http.baseUrl;
    const anonymous = stratusClient(base, checker);
    const api = stratusClient(base, checker, { 'x-api-key': owner.apiKey });
    const cloud = stratusClient(base, checker, { authorization: `Bearer ${owner.token}` });

    dataOf(await anonymous.GET('/health'));
    dataOf(await anonymous.GET('/ready'));
    expect(dataOf(await anonymous.GET('/.well-known/jwks.json')).keys.length).toBeGreaterThan(0);
    expect(dataOf(await cloud.GET('/api/cloud/auth/whoami')).project_id).toBe(owner.projectId);

    // Catalog, one page each.
    expect(dataOf(await api.GET('/v1/flavors', { params: { query: { limit: 1 } } })).next_cursor).toEqual(expect.any(String));
    dataOf(await api.GET('/v1/security_groups'));
    dataOf(await api.GET('/v1/images'));
    dataOf(await api.GET('/v1/networks'));
    dataOf(await api.GET('/v1/keypairs'));

    // An instance, up.
    const created = dataOf(await api.POST('/v1/instances', { body: { name: 'tour', ...DEMO_INSTANCE } }));
    await waitActive(api, created.id);
    const instance = dataOf(await api.GET('/v1/instances/{id}', { params: { path: { id: created.id } } }));
    // Answers that are errors are checked too: 404 in the envelope.
    expect((await api.GET('/v1/instances/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } })).error?.error.code).toBe('not_found');

    // A volume through its life.
    const volume = dataOf(await cloud.POST('/api/cloud/volumes/create', { body: { name: 'tour', size: 1 } }));
    await waitFor('the volume to be available', async () => dataOf(await cloud.GET('/api/cloud/volumes/list')).find((v) => v.id === volume.id && v.status === 'available'), {
      timeoutMs: 60_000,
    });
    const attachment = dataOf(await cloud.POST('/api/cloud/volumes/attach', { body: { volume_id: volume.id, instance_id: instance.id } }));
    await waitFor('the volume to be in use', async () => dataOf(await cloud.GET('/api/cloud/volumes/list')).find((v) => v.id === volume.id && v.status === 'in-use'), {
      timeoutMs: 60_000,
    });
    dataOf(await cloud.POST('/api/cloud/volumes/detach', { body: { volume_id: volume.id, attachment_id: attachment.attachment_id! } }));
    await waitFor('the volume to be available again', async () => dataOf(await cloud.GET('/api/cloud/volumes/list')).find((v) => v.id === volume.id && v.status === 'available'), {
      timeoutMs: 60_000,
    });
    dataOf(await cloud.DELETE('/api/cloud/volumes/delete/{id}', { params: { path: { id: volume.id } } }));

    // A gateway route to it.
    const { port } = dataOf(await cloud.GET('/api/cloud/gateway/available-port'));
    const route = dataOf(await cloud.POST('/api/cloud/gateway/create', { body: { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port } }));
    expect(route.status).toBe('active');
    expect(dataOf(await cloud.GET('/api/cloud/gateway/used-ports')).ports).toContain(port);
    dataOf(await cloud.GET('/api/cloud/gateway/health'));
    dataOf(await anonymous.DELETE('/api/cloud/gateway/routes/{port}', { params: { path: { port: String(port) } } }));

    // DNS: a proxy host, and the instance's metadata.
    const host = dataOf(await cloud.POST('/api/cloud/dns/create', { body: { instanceId: instance.id, forwardPort: 3000 } }));
    dataOf(await cloud.POST('/api/cloud/dns/update-dns', { body: { instanceId: instance.id, metadata: { team: 'tour' } } }));
    dataOf(await anonymous.GET('/api/cloud/dns/list'));
    const hostPath = { params: { path: { proxyHostId: host.id } } };
    dataOf(await anonymous.GET('/api/cloud/dns/proxy-hosts/{proxyHostId}', hostPath));
    expect(dataOf(await anonymous.PUT('/api/cloud/dns/proxy-hosts/{proxyHostId}', { ...hostPath, body: { updateData: { forwardPort: 8080 } } })).forwardPort).toBe(8080);
    dataOf(await anonymous.DELETE('/api/cloud/dns/proxy-hosts/{proxyHostId}', hostPath));

    // The four kinds of database server: create, list, get, reset the password once ready, delete.
    // Each create's and reset's password is recorded for the leak check that runs last.
    const pg = dataOf(await api.POST('/v1/databases', { body: { ...DB_PLACEMENT, name: 'tour-pg' } }));
    const cache = dataOf(await api.POST('/v1/cache', { body: { ...DB_PLACEMENT, name: 'tour-cache' } }));
    const ch = dataOf(await api.POST('/v1/analytics', { body: { ...DB_PLACEMENT, name: 'tour-ch' } }));
    const maria = dataOf(await api.POST('/v1/relational-databases', { body: { ...DB_PLACEMENT, name: 'tour-maria', engine: 'mariadb' } }));
    [pg.db_password, cache.password, ch.db_password, maria.db_password].forEach(recordIssuedPassword);
    const servers: Array<['/v1/databases' | '/v1/cache' | '/v1/analytics' | '/v1/relational-databases', number]> = [
      ['/v1/databases', pg.id],
      ['/v1/cache', cache.id],
      ['/v1/analytics', ch.id],
      ['/v1/relational-databases', maria.id],
    ];
    for (const [collection, id] of servers) {
      expect(dataOf(await api.GET(collection)).map((d) => d.id)).toContain(id);
      const path = { params: { path: { id: String(id) } } };
      await waitFor(`${collection}/${id} ready`, async () => dataOf(await api.GET(`${collection}/{id}`, path)).status === 'ready', { timeoutMs: 120_000, intervalMs: 100 });
      const reset = dataOf(await api.POST(`${collection}/{id}/reset-password`, path));
      recordIssuedPassword('password' in reset ? reset.password : reset.db_password);
      expect((await api.DELETE(`${collection}/{id}`, path)).response.status).toBe(204);
    }

    // A cluster: create, list, get, update once built, delete (its build, healing and rollouts are the clusters suite's).
    const cluster = dataOf(
      await api.POST('/v1/clusters', { body: { name: 'tour', image: 'demo-web', flavor: 'm1.small', backend_network_id: 'private', key_name: 'default', port: 8080 } }),
    );
    expect(cluster.message).toBe('Stack creation started');
    expect(dataOf(await api.GET('/v1/clusters')).map((c) => c.id)).toContain(cluster.id);
    const clusterPath = { params: { path: { id: cluster.id } } };
    await waitFor('the cluster to be built', async () => dataOf(await api.GET('/v1/clusters/{id}', clusterPath)).status === 'CREATE_COMPLETE', {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    expect(dataOf(await api.PUT('/v1/clusters/{id}', { ...clusterPath, body: { scale_out_threshold: 0.8 } })).status).toBe('UPDATE_IN_PROGRESS');
    expect((await api.DELETE('/v1/clusters/{id}', { params: { path: { id: cluster.id } } })).response.status).toBe(204);
    // One made of a running instance (deleting it deletes that instance too).
    const source = dataOf(await api.POST('/v1/instances', { body: { name: 'tour-source', ...DEMO_INSTANCE } }));
    await waitActive(api, source.id);
    const adopted = dataOf(
      await api.POST('/v1/clusters/from-instance', {
        body: { name: 'tour-adopted', instance_id: source.id, flavor: 'm1.small', backend_network_id: 'private', key_name: 'default' },
      }),
    );
    expect(adopted).toMatchObject({ message: 'Stack creation started', source_instance_id: source.id, port: 3000 });
    expect((await api.DELETE('/v1/clusters/{id}', { params: { path: { id: adopted.id } } })).response.status).toBe(204);

    expect((await api.DELETE('/v1/instances/{id}', { params: { path: { id: instance.id } } })).response.status).toBe(204);

    // Every operation of the document answered its success, and it was what the document says.
    const missing = operationsOf(doc)
      .map(([key, op]) => `${key} ${Object.keys(op.responses).find((s) => /^2/.test(s))}`)
      .filter((success) => !checker.seen.has(success));
    expect(missing).toEqual([]);
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
      // Closed only once every queue's connection is up: one closed while it still connects rejects where nobody listens.
      await Promise.all(ALL_QUEUES.map((name) => app.get<Queue>(getQueueToken(name), { strict: false }).waitUntilReady()));
      const document = (await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/docs/json' })).json();
      return { routes: [...routes], document };
    } finally {
      await app.close();
    }
  } finally {
    process.env = saved;
  }
}
