import Fastify from 'fastify';
import { createHash } from 'node:crypto';
import { DASHBOARD_CSP, DROP_URL_CREDENTIALS, hardenDashboardPage } from './queue-dashboard.page';

describe('the queue dashboard page', () => {
  async function app() {
    const fastify = Fastify();
    await fastify.register(async (scope) => {
      hardenDashboardPage(scope);
      scope.get('/admin/queues', (_req, reply) => reply.type('text/html; charset=utf-8').send('<!DOCTYPE html><html><head><base href="/admin/queues/" /></head></html>'));
      scope.get('/admin/queues/api/queues', () => ({ queues: ['<head>'] }));
    });
    fastify.get('/elsewhere', (_req, reply) => reply.type('text/html').send('<html><head></head></html>'));
    return fastify;
  }

  it('puts the reload without URL credentials first in the head, and allows it by its hash', async () => {
    const res = await (await app()).inject('/admin/queues');
    expect(res.body).toBe(`<!DOCTYPE html><html><head>\n<script>${DROP_URL_CREDENTIALS}</script><base href="/admin/queues/" /></head></html>`);
    const hash = createHash('sha256').update(DROP_URL_CREDENTIALS).digest('base64');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(res.headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
  });

  it('leaves JSON answers and the rest of the api alone', async () => {
    const fastify = await app();
    const json = await fastify.inject('/admin/queues/api/queues');
    expect(json.json()).toEqual({ queues: ['<head>'] });
    expect(json.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    const other = await fastify.inject('/elsewhere');
    expect(other.body).toBe('<html><head></head></html>');
    expect(other.headers['content-security-policy']).toBeUndefined();
  });
});
