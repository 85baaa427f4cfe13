import Fastify, { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { logRequests } from './request-logging';

/** Real Fastify, real pino and nestjs-pino's PinoLogger (what services log through); lines captured. */
describe('logRequests', () => {
  let app: FastifyInstance;
  let lines: Array<Record<string, unknown>>;

  beforeEach(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const root = pino({ base: { service: 'api' }, redact: { paths: ['*.password'], censor: '[redacted]' } }, sink);
    const serviceLogger = new PinoLogger({ pinoHttp: { logger: root } });
    serviceLogger.setContext('TestService');
    app = Fastify({ genReqId: (req) => String(req.headers['x-request-id'] ?? 'generated') });
    logRequests(app, root);
    // Handlers log after an await, as services do, so the binding must survive the hop.
    app.get('/things', async () => {
      await sleep(5);
      serviceLogger.info({ step: 'listed', user: { password: 'hunter2' } }, 'inside a GET');
      return { ok: true };
    });
    app.post('/things', async (request) => {
      await sleep(5);
      serviceLogger.warn({ body: request.body }, 'inside a POST');
      return { ok: true };
    });
    app.get('/health', async () => ({ status: 'ok' }));
    await app.ready();
  });

  afterEach(() => app.close());

  it('names the request on the lines a service logs during a GET, and echoes its id', async () => {
    const res = await app.inject({ method: 'GET', url: '/things?limit=2', headers: { 'x-request-id': 'get-1' } });
    expect(res.headers['x-request-id']).toBe('get-1');
    const inside = lines.find((l) => l.msg === 'inside a GET');
    expect(inside).toMatchObject({ request_id: 'get-1', context: 'TestService', step: 'listed', service: 'api' });
    // The request's logger keeps the root's redaction.
    expect(inside!.user).toEqual({ password: '[redacted]' });
  });

  it('keeps the binding across body parsing of a POST', async () => {
    await app.inject({ method: 'POST', url: '/things', headers: { 'x-request-id': 'post-1' }, payload: { a: 1 } });
    expect(lines.find((l) => l.msg === 'inside a POST')).toMatchObject({ request_id: 'post-1', body: { a: 1 } });
  });

  it('writes one access line per answer, and none for /health', async () => {
    await app.inject({ method: 'GET', url: '/things?limit=2', headers: { 'x-request-id': 'get-2' } });
    await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'missing-1' } });
    await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'probe-1' } });
    const access = lines.filter((l) => l.msg === 'request completed');
    expect(access).toEqual([
      expect.objectContaining({ level: 30, request_id: 'get-2', method: 'GET', url: '/things?limit=2', status: 200, ms: expect.any(Number) }),
      expect.objectContaining({ level: 30, request_id: 'missing-1', method: 'GET', url: '/nowhere', status: 404 }),
    ]);
    expect(lines.some((l) => l.request_id === 'probe-1')).toBe(false);
  });

  it('leaves lines logged outside any request without a request id', async () => {
    await app.inject({ method: 'GET', url: '/things', headers: { 'x-request-id': 'get-3' } });
    new PinoLogger({ pinoHttp: {} }).info('between requests');
    expect(lines.find((l) => l.msg === 'between requests')).not.toHaveProperty('request_id');
  });
});
