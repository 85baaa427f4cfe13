import {
  applyDecorators,
  BadRequestException,
  CallHandler,
  ConflictException,
  ExecutionContext,
  HttpStatus,
  Injectable,
  Logger,
  NestInterceptor,
  UnprocessableEntityException,
  UseInterceptors,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { AppConfig, IdempotencyKeys, Principal, withIdempotencyClaim } from '@stratus/core';
import { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Visible ASCII but `"` and `\`, 1 to 255 of them: a UUID, a ULID or a client's own token all fit. */
const KEY_SYNTAX = /^[!#-[\]-~]{1,255}$/;

/** What stands where a create answer had a password: it left the api once, in the first answer. */
export const PASSWORD_ISSUED_ONCE = 'issued once, in the first answer to this Idempotency-Key';
const PASSWORD_FIELDS = new Set(['password', 'db_password']);

/** Seconds a client told 409 (the first request still running) should wait before retrying. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * `Idempotency-Key` on a create (Stripe's semantics, and the IETF httpapi
 * draft's): the first request with a key claims it in PostgreSQL before the
 * create runs, so a second api process sees the claim too; its answer
 * (status and body, passwords replaced) is kept IDEMPOTENCY_TTL_MS and
 * replayed, with `Idempotent-Replayed: true`, to a retry with the same key
 * and body. The same key with another body (or on another route) is 422, a
 * retry while the first still runs is 409, and so is one whose first
 * create committed but lost its answer (its process died before keeping
 * it): the create is not run again. A create that fails (4xx or 5xx)
 * made nothing, so its key is released and a retry runs it afresh: storing
 * a 400 would only pin a mistake the client may have corrected. The key is
 * the caller's: its credential kind and project scope it, so another
 * project's equal key is another key, and only the caller who sent a key
 * can read what was kept under it.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('idempotency');

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyKeys,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { principal?: Principal }>();
    const header = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
    if (header === undefined) return next.handle();
    const key = parseKey(header);
    // Every create route is guarded; without a caller there is nothing to scope the key to.
    const principal = request.principal;
    if (!principal?.projectId) return next.handle();
    const path = request.routeOptions?.url ?? request.url.split('?')[0];
    const scope = `${path.startsWith('/v1/') ? 'api-key' : 'bearer'}:${principal.projectId}`;
    const fingerprint = fingerprintOf(request.method, path, request.body);
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    return from(this.run(next, http.getResponse<FastifyReply>(), scope, key, fingerprint, status));
  }

  private async run(next: CallHandler, reply: FastifyReply, scope: string, key: string, fingerprint: string, status: number): Promise<unknown> {
    const claim = await this.keys.claim(scope, key, fingerprint, this.config.IDEMPOTENCY_TTL_MS);
    switch (claim.kind) {
      case 'mismatch':
        throw new UnprocessableEntityException(`${IDEMPOTENCY_HEADER} was first sent with another request (body or route); use a new key for a new request`);
      case 'in-flight':
        reply.header('retry-after', String(IN_FLIGHT_RETRY_AFTER_SECONDS));
        throw new ConflictException(`a request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has answered`);
      case 'answer-lost':
        throw new ConflictException(
          `the request first sent with this ${IDEMPOTENCY_HEADER} created its resource, but its answer was not kept (the api stopped or lost its database first): ` +
            'it is not created again; find it in the list of the collection',
        );
      case 'done':
        reply.code(claim.statusCode);
        reply.header(REPLAYED_HEADER, 'true');
        return claim.response;
    }
    const held = { scope, key, holder: claim.holder };
    let answer: unknown;
    try {
      answer = await withIdempotencyClaim(held, () => lastValueFrom(next.handle()));
    } catch (err) {
      await this.keys.release(held).catch((releaseErr) => this.logger.warn({ err: String(releaseErr) }, 'could not release an idempotency key; it frees itself when stale'));
      throw err;
    }
    // The resource exists now: a failure to keep the answer must not turn its create into an error the client would retry.
    await this.keys.complete(held, status, withoutPasswords(answer)).catch((err) => this.logger.warn({ err: String(err) }, 'could not keep the answer of an idempotent create'));
    reply.header(REPLAYED_HEADER, 'false');
    return answer;
  }
}

/** The key as sent, bare or as the draft's quoted string; anything else is a 400 that says what a key is. */
export function parseKey(header: string | string[]): string {
  const value = Array.isArray(header) ? null : header.trim();
  const key = value && value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (key === null || !KEY_SYNTAX.test(key)) {
    throw new BadRequestException(`${IDEMPOTENCY_HEADER} must be one value of 1 to 255 visible ASCII characters (no quote or backslash), such as a UUID`);
  }
  return key;
}

/** JSON with object keys sorted at every depth: the same body however its fields were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** The answer as kept: every password field, at any depth, replaced by PASSWORD_ISSUED_ONCE. */
export function withoutPasswords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPasswords);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, PASSWORD_FIELDS.has(k) && typeof v === 'string' ? PASSWORD_ISSUED_ONCE : withoutPasswords(v)]),
    );
  }
  return value;
}

/**
 * A create that honours `Idempotency-Key`; the OpenAPI document adds its
 * 409, 422 and the Idempotent-Replayed header (openapi.document.ts).
 */
export function Idempotent() {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      description:
        'A key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried create safe: the same key and body within 24 h ' +
        'answer the first response again (passwords replaced by a note: they are issued once) instead of creating twice. Scoped to your project and credential kind.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    }),
  );
}
