import { metricsRegistry } from '@stratus/core';
import Fastify from 'fastify';
import { measureRequests, methodLabel, routeLabel, statusLabel, UNMATCHED_ROUTE } from './http.metrics';

describe('http metrics labels', () => {
  it('labels a request by the route pattern it matched, never by its URL', () => {
    expect(routeLabel('/v1/instances/:id')).toBe('/v1/instances/:id');
    expect(routeLabel('/api/cloud/dns/proxy-hosts/:proxyHostId')).toBe('/api/cloud/dns/proxy-hosts/:proxyHostId');
  });

  it('puts every request no route matched under one label', () => {
    expect(routeLabel(undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('')).toBe(UNMATCHED_ROUTE);
  });

  it('keeps methods and statuses to closed sets', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('OTHER');
    expect(methodLabel('get')).toBe('OTHER');
    expect(statusLabel(404)).toBe('404');
    expect(statusLabel(1000)).toBe('other');
    expect(statusLabel(42)).toBe('other');
  });
});

describe('measureRequests', () => {
  it('keeps one series per route, method and status however many ids and unknown URLs are asked for', async () => {
    const app = Fastify();
    measureRequests(app);
    app.get('/v1/instances/:id', async (request, reply) => reply.status((request.params as { id: string }).id.endsWith('7') ? 404 : 200).send({}));
    await app.ready();
    const histogram = metricsRegistry.getSingleMetric('stratus_http_request_duration_seconds')!;
    histogram.reset();
    for (let i = 0; i < 300; i++) {
      await app.inject({ method: 'GET', url: `/v1/instances/${i}?secret=${i}` });
      await app.inject({ method: 'GET', url: `/scan/${i}/wp-login.php` });
    }
    await app.close();

    const counts = (await histogram.get()).values.filter((v) => (v as { metricName?: string }).metricName === 'stratus_http_request_duration_seconds_count');
    const series = counts.map((v) => ({ ...v.labels, n: v.value }));
    expect(series).toHaveLength(3);
    expect(series).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/v1/instances/:id', status: '200', n: 270 },
        { method: 'GET', route: '/v1/instances/:id', status: '404', n: 30 },
        { method: 'GET', route: UNMATCHED_ROUTE, status: '404', n: 300 },
      ]),
    );
  });
});
