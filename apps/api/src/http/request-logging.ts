import { FastifyInstance } from 'fastify';
import { storage, Store } from 'nestjs-pino/storage';
import { Logger } from 'pino';

/** Probed every few seconds by supervisors: answered, but not logged. */
const UNLOGGED_PATHS = new Set(['/health']);

/**
 * Request logging in two Fastify hooks instead of Nest middleware (which
 * Fastify would run through @fastify/middie, with pino-http): the same lines
 * for a fraction of the cost per request (bench/README.md).
 *
 * - Every line logged while a request runs carries its request_id, which is
 *   also echoed in `x-request-id`. The request's logger is bound where
 *   nestjs-pino's PinoLogger looks for it (its AsyncLocalStorage), so
 *   services logging through Nest's Logger name the request without being
 *   handed anything. Fastify parses bodies in an AsyncResource of the
 *   request, so the binding holds for POST bodies too.
 * - One access line records each answer: method, url, status, time.
 */
export function logRequests(fastify: FastifyInstance, root: Logger): void {
  // The access line holds only these fields, none of them a credential
  // (keys and tokens travel in headers, which are not logged), so it skips
  // the wildcard redaction that costs every other line a clone per field.
  const access = root.child({}, { redact: [] });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    storage.run(requestStore(root, request.id), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!UNLOGGED_PATHS.has(request.routeOptions.url ?? '')) {
      const status = reply.statusCode;
      access[status >= 500 ? 'error' : 'info'](
        { request_id: request.id, method: request.method, url: request.url, status, ms: Math.round(reply.elapsedTime * 100) / 100 },
        'request completed',
      );
    }
    done();
  });
}

/** The request's logger is made on first use: most requests log nothing but their access line. */
function requestStore(root: Logger, requestId: string): Store {
  let logger: Logger | undefined;
  return {
    get logger() {
      return (logger ??= root.child({ request_id: requestId }));
    },
    // PinoLogger.assign() replaces it with a child carrying more fields.
    set logger(value: Logger) {
      logger = value;
    },
  };
}
