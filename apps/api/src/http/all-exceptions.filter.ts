import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { DomainError, DomainErrorKind, looksLikePostgresUnreachable, postgresPort } from '@stratus/core';
import { RedisUnavailableError } from '@stratus/queue';
import { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from './error-envelope';

/**
 * The status of each kind of libs/core's domain errors: the one place a
 * resource's refusal becomes HTTP.
 */
const DOMAIN_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  quota_exceeded: 403,
};

/** Kinds whose `error.code` is their own rather than their status's. */
const DOMAIN_CODE: Readonly<Partial<Record<DomainErrorKind, string>>> = {
  quota_exceeded: 'quota_exceeded',
};

/**
 * Every failure of every route ends here and leaves as the error envelope.
 * Anything that is neither an HttpException nor a DomainError is a bug:
 * logged with its stack, answered 500 with no internals. The message of
 * either is ours and meant for the caller, a 503's included (what is
 * unavailable, and why). PostgreSQL or Redis out of reach is not a bug
 * either: a 503 that names it.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');
  private readonly databasePort: number;

  constructor(databaseUrl: string) {
    this.databasePort = postgresPort(databaseUrl);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const dependency = unavailableDependency(exception, this.databasePort);
    const [status, body] = dependency ? [503, envelope(503, `${dependency} is unavailable; try again shortly`)] : toEnvelope(exception);
    if (dependency) {
      this.logger.warn({ request_id: request.id, url: request.url, err: String(exception) }, `${dependency} is unavailable`);
    } else if (status >= 500 && !(exception instanceof HttpException) && !(exception instanceof DomainError)) {
      this.logger.error({ err: exception, request_id: request.id, url: request.url }, 'unhandled error');
    } else if (status >= 500) {
      this.logger.warn({ request_id: request.id, url: request.url, status, message: body.error.message }, 'answered with a server error');
    }
    reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}

export function toEnvelope(exception: unknown): [number, ReturnType<typeof envelope>] {
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    if (typeof response === 'object' && response !== null && 'error' in response && isEnvelope(response)) {
      return [status, response];
    }
    const message =
      typeof response === 'string'
        ? response
        : Array.isArray((response as { message?: unknown }).message)
          ? (response as { message: string[] }).message.join('; ')
          : String((response as { message?: string | number }).message ?? exception.message);
    return [status, envelope(status, message)];
  }
  if (exception instanceof DomainError) {
    const status = DOMAIN_STATUS[exception.kind];
    return [status, envelope(status, exception.message, DOMAIN_CODE[exception.kind])];
  }
  // Fastify's own errors (parsing, limits) carry a statusCode.
  const statusCode = (exception as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return [statusCode, envelope(statusCode, fastifyMessage(exception as Error & { code?: string }))];
  }
  return [500, envelope(500, 'internal error')];
}

/** Which dependency the failure says is out of reach, if any. */
export function unavailableDependency(exception: unknown, databasePort: number): 'PostgreSQL' | 'Redis' | null {
  if (exception instanceof RedisUnavailableError) return 'Redis';
  return looksLikePostgresUnreachable(exception, databasePort) ? 'PostgreSQL' : null;
}

function isEnvelope(value: object): value is ReturnType<typeof envelope> {
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && 'code' in error && 'message' in error;
}

function fastifyMessage(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported content type: send application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'content-length does not match the body';
    case 'FST_ERR_BAD_URL':
      return 'malformed URL';
    default:
      return err.message;
  }
}
