import { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';

/**
 * The entity tag of a JSON body and its Link header: a hash of their bytes,
 * so equal answers, and only they, share it (a page whose items stayed but
 * whose next page went is a change).
 */
export function etagOf(body: string, link: unknown): string {
  const hash = createHash('sha256').update(body);
  if (typeof link === 'string') hash.update(`\n${link}`);
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for GET; `*` names any). */
export function noneMatchNames(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === bare);
}

/**
 * Every successful GET answers with an ETag, and a GET whose If-None-Match
 * names it with 304 and no body: a poll of something unchanged costs the
 * query but not the transfer. Here, on the serialized body, so every get
 * and list has it without a line in its controller.
 */
export function answerConditionalGets(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const etag = etagOf(payload, reply.getHeader('link'));
    reply.header('etag', etag);
    // A cache may keep an answer only to ask again with its ETag: a poll always reaches the api.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
    if (!noneMatchNames(request.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return null;
  });
}
