import { metricsRegistry } from '@stratus/core';
import { FastifyInstance } from 'fastify';
import { Histogram } from 'prom-client';

/** Methods the routes answer; anything else a client sends is one label, not one series each. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A request no route matched (a 404, a scan): one label, whatever URL it asked for. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route label: the pattern Fastify matched (`/v1/instances/:id`), never
 * the URL, so ids, query strings and a scanner's made-up paths add no series.
 * The set of values is the set of routes the process registered.
 */
export function routeLabel(pattern: string | undefined): string {
  return pattern ? pattern : UNMATCHED_ROUTE;
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'OTHER';
}

/** A status code as Fastify sends it; out-of-range values (none should exist) are one label. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other';
}

/**
 * One histogram for requests: its `_count` is the requests by route and
 * status, its buckets their latency. The buckets are few (each is a series
 * per route, method and status) and placed around what the reads take (a few
 * ms) and what a create or a long poll can.
 */
const requestSeconds = new Histogram({
  name: 'stratus_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status, with their duration',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
  registers: [metricsRegistry],
});

/**
 * Measured in Fastify's onResponse hook, not a Nest interceptor: the hook is
 * a function call per request where an interceptor is an rxjs pipeline, which
 * cost the read path ~10% (bench/README.md). Every answer passes it, 404s and
 * framework errors included.
 */
export function measureRequests(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    requestSeconds.observe({ method: methodLabel(request.method), route: routeLabel(request.routeOptions.url), status: statusLabel(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
}
