import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata, Type, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { Principal, WatchedTable } from '@stratus/core';
import { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { BUSY_RETRY_AFTER_SECONDS, ChangeFeed } from './change-feed';
import { etagOf, noneMatchNames } from './etag';
import { MAX_WAIT_SECONDS } from './list-query';

const WATCHES = 'stratus:long-poll-table';

/**
 * `?wait=<seconds>` with If-None-Match: the handler runs; if its answer is
 * still the one the client has, the request waits (holding no database
 * connection: a Watch on the change feed) until a row of `table` in the
 * caller's project changes, then runs the handler again; the first answer
 * that differs goes out as a 200, and at the deadline the last one, which
 * etag.ts turns into a 304. So a client waiting for `ready` makes one
 * request per change instead of one per poll interval.
 */
@Injectable()
export class LongPollInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly changes: ChangeFeed,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const table = this.reflector.get<WatchedTable | undefined>(WATCHES, context.getHandler());
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { principal?: Principal }>();
    const wait = waitOf((request.query as Record<string, unknown> | undefined)?.wait);
    const tags = request.headers['if-none-match'];
    // Without a wait, or an ETag to compare with, there is nothing to wait for; a bad wait is the validation pipe's 400.
    if (!table || !wait || !tags) return next.handle();
    return from(this.poll(next, http.getResponse<FastifyReply>(), table, request.principal?.projectId, tags, Date.now() + wait * 1000));
  }

  private async poll(next: CallHandler, reply: FastifyReply, table: WatchedTable, projectId: string | undefined, tags: string | string[], deadline: number): Promise<unknown> {
    let watch;
    try {
      // Listening before the first look: a change between the look and the wait is heard.
      watch = await this.changes.watch(table, projectId);
    } catch (err) {
      reply.header('retry-after', String(BUSY_RETRY_AFTER_SECONDS));
      throw err;
    }
    // A client that gives up frees its place at once.
    const gone = () => watch.close();
    reply.raw.once('close', gone);
    try {
      for (;;) {
        const answer = await lastValueFrom(next.handle());
        if (!noneMatchNames(tags, etagOf(JSON.stringify(answer), reply.getHeader('link')))) return answer;
        const left = deadline - Date.now();
        if (left <= 0 || !(await watch.changed(left))) return answer;
      }
    } finally {
      reply.raw.off('close', gone);
      watch.close();
    }
  }
}

/** `?wait=` as the validation pipe will take it; anything else is not a wait. */
function waitOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,6}$/.test(value)) return null;
  const seconds = Number(value);
  return seconds <= MAX_WAIT_SECONDS ? seconds : null;
}

/**
 * A get or list that answers `?wait=` long polls, woken by changes of
 * `table`'s rows in the caller's project. The route's query DTO declares
 * `wait` (list-query.ts); the OpenAPI document adds If-None-Match, the ETag
 * and 304 to every GET.
 */
export function LongPoll(table: WatchedTable) {
  return applyDecorators(
    SetMetadata(WATCHES, table),
    UseInterceptors(LongPollInterceptor),
    ApiResponse({ status: 503, description: 'Too many long polls wait already, or PostgreSQL or Redis is out of reach; Retry-After says when to try again' }),
  );
}

export const LINK_HEADER = {
  Link: {
    description: 'Where the next page is, as `<url>; rel="next"`; absent on the last page. Follow it rather than building a url.',
    schema: { type: 'string' as const },
  },
};

/** The 200 of a list: SPEC.md's array, and the Link to the next page. */
export function ApiListResponse(view: Type<unknown>) {
  return ApiOkResponse({ type: [view], description: 'A page, newest first', headers: LINK_HEADER });
}
