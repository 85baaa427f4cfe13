import { retryAfterMs } from './openstack-client';
import { classify, faultOf } from './openstack-errors';

describe('openstack errors', () => {
  it("reads each service's error body", () => {
    expect(faultOf({ NeutronError: { type: 'OverQuota', message: 'Quota exceeded for resources: [port].', detail: '' } })).toEqual({
      fault: 'OverQuota',
      message: 'Quota exceeded for resources: [port].',
    });
    expect(faultOf({ forbidden: { code: 403, message: 'Quota exceeded for instances' } })).toEqual({ fault: 'forbidden', message: 'Quota exceeded for instances' });
    expect(faultOf({ error: { code: 401, title: 'Unauthorized', message: 'nope' } })).toEqual({ fault: 'Unauthorized', message: 'nope' });
    expect(faultOf({ faultcode: 'Client', faultstring: 'Quota has been met', debuginfo: null })).toEqual({ fault: 'Client', message: 'Quota has been met' });
    expect(faultOf(null)).toEqual({ fault: null, message: '' });
  });

  it('maps each quota error to a terminal quota code, and throttling and outages to retryable', () => {
    expect(classify('compute', 403, 'forbidden', 'Quota exceeded for ram')).toBe('quota');
    expect(classify('compute', 403, 'forbidden', 'Maximum number of ports exceeded')).toBe('quota');
    expect(classify('compute', 403, 'forbidden', "Policy doesn't allow os_compute_api:servers:create to be performed.")).toBe('invalid');
    expect(classify('block-storage', 413, 'overLimit', 'VolumeLimitExceeded: Maximum number of volumes allowed (0) exceeded')).toBe('quota');
    expect(classify('block-storage', 413, 'overLimitFault', 'rate limited')).toBe('invalid');
    expect(classify('network', 409, 'OverQuota', 'Quota exceeded for resources: [port].')).toBe('quota');
    expect(classify('network', 409, 'IpAddressInUse', 'in use')).toBe('retryable');
    expect(classify('load-balancer', 403, 'Client', 'Quota has been met for resources: LoadBalancer')).toBe('quota');
    expect(classify('compute', 404, 'itemNotFound', 'x')).toBe('not_found');
    expect(classify('compute', 429, 'overLimit', 'x')).toBe('retryable');
    expect(classify('compute', 503, null, 'x')).toBe('retryable');
    expect(classify('compute', 400, 'badRequest', 'x')).toBe('invalid');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});
