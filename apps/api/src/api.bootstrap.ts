import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '@stratus/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { mountQueueDashboard } from './admin/queue-dashboard';
import { mountMetrics } from './metrics/metrics.route';
import { ApiModule } from './api.module';
import { AllExceptionsFilter, toEnvelope } from './http/all-exceptions.filter';
import { envelope } from './http/error-envelope';
import { answerConditionalGets } from './http/etag';
import { answerClientError } from './http/client-error';
import { registerJsonParser } from './http/json-body.parser';
import { logRequests } from './http/request-logging';
import { buildOpenApiDocument } from './openapi/openapi.document';
import { StrictValidationPipe } from './http/validation.pipe';

/** Builds the API app: one body parser, one error filter, one validation pipe, the OpenAPI document. */
export async function createApi(): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: 1_048_576,
    // A caller's x-request-id is kept when it is sane; otherwise one is made.
    requestIdHeader: false,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 512 },
    // Errors Fastify raises before routing (bad URL encoding) still leave as the envelope.
    frameworkErrors: (error: FastifyError, _req: unknown, reply: FastifyReply) => {
      const [status, body] = toEnvelope(error);
      reply.status(status).send(body);
    },
    // ...and so do requests Node's HTTP parser refuses (oversized headers, malformed request lines).
    clientErrorHandler: answerClientError,
    // No Nest middleware is used (request logging is in Fastify hooks), so
    // @fastify/middie and its per-request pass are left out.
    skipMiddie: true,
    // Requests that reach a closing server are refused by our own hook below, in the envelope.
    return503OnClosing: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule, adapter, {
    bufferLogs: true,
    // Our own JSON parser (size and depth limits) is the only one.
    bodyParser: false,
  });
  const config = app.get(AppConfig);
  app.useLogger(app.get(Logger));

  const fastify = app.getHttpAdapter().getInstance();
  registerJsonParser(fastify, config.BODY_LIMIT_BYTES, config.BODY_MAX_DEPTH);
  logRequests(fastify, (await app.resolve(PinoLogger)).logger);
  answerConditionalGets(fastify);
  refuseWhileClosing(fastify);
  mountMetrics(app);
  app.useGlobalFilters(new AllExceptionsFilter(config.DATABASE_URL));
  app.useGlobalPipes(new StrictValidationPipe());

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
  await mountQueueDashboard(app);
  return app;
}

/**
 * Once shutdown begins no new connection is accepted, but a request already
 * on an open keep-alive connection may still arrive: it is refused at once,
 * in the error envelope, and its connection closed, so the client retries
 * elsewhere rather than starting work this process will not finish.
 */
function refuseWhileClosing(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    return reply.status(503).header('connection', 'close').header('content-type', 'application/json; charset=utf-8').send(envelope(503, 'the api is shutting down; try again'));
  });
}
