import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { RowsPage } from '@stratus/core';
import { FastifyReply, FastifyRequest } from 'fastify';
import { encodePageCursor } from './list-query';

/**
 * Answers a page as SPEC.md's array, and says where the next one is as
 * GitHub and RFC 8288 do: `Link: <url>; rel="next"`, the url this request's
 * with the cursor of the next page (the other parameters kept, `wait`
 * dropped: the next page is read, not waited on). No link on the last page.
 */
export class PageLinks {
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  answer<R, V>(page: RowsPage<R>, present: (row: R) => V): V[] {
    this.next(page.next && encodePageCursor(page.next));
    return page.rows.map(present);
  }

  /**
   * A lookup's `{items, next_cursor}` (SPEC.md) as it is, with the same Link
   * as the lists, so a client follows one kind of link everywhere. In the
   * handler, not an interceptor: an interceptor puts every request of the
   * route through an rxjs pipeline, which cost the lookups' reads about a
   * sixth of their rate (bench/README.md, api-throughput).
   */
  paged<P extends { next_cursor?: string | null }>(page: P): P {
    this.next(page.next_cursor ?? null);
    return page;
  }

  /** Sets the Link to the page `cursor` starts, or removes it when there is none. */
  next(cursor: string | null): void {
    if (cursor) {
      const url = new URL(this.request.url, `${this.request.protocol}://${this.request.host}`);
      url.searchParams.delete('wait');
      url.searchParams.set('cursor', cursor);
      this.reply.header('link', `<${url.href}>; rel="next"`);
    } else {
      // A long poll runs the list again: a link set by an earlier run must not outlive it.
      this.reply.removeHeader('link');
    }
  }
}

/** The request's PageLinks, for a list handler. */
export const Links = createParamDecorator((_: unknown, ctx: ExecutionContext) => new PageLinks(ctx.switchToHttp().getRequest(), ctx.switchToHttp().getResponse()));
