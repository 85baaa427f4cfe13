import { DriverError, DriverErrorCode } from '../driver-error';

/** The catalog types the provider talks to. */
export type ServiceType = 'identity' | 'compute' | 'network' | 'block-storage' | 'image' | 'load-balancer' | 'orchestration';

/**
 * A call to an OpenStack API that did not succeed: a DriverError (the worker
 * maps its code) that keeps what the cloud said, for the driver that needs
 * to tell a 404 or a 409 apart.
 */
export class OpenStackError extends DriverError {
  constructor(
    code: DriverErrorCode,
    message: string,
    readonly service: ServiceType,
    readonly status: number,
    /** The fault's type when the service names one (Neutron's `OverQuota`, Nova's `itemNotFound`). */
    readonly fault: string | null,
  ) {
    super(code, message);
    this.name = 'OpenStackError';
  }
}

/** The message and fault type of an error body, in each service's shape (never the request: it may hold user_data). */
export function faultOf(body: unknown): { fault: string | null; message: string } {
  if (!body || typeof body !== 'object') return { fault: null, message: typeof body === 'string' ? body.slice(0, 300) : '' };
  const b = body as Record<string, any>;
  // Neutron: {"NeutronError":{"type","message"}}
  if (b.NeutronError) return { fault: b.NeutronError.type ?? null, message: String(b.NeutronError.message ?? '') };
  // Keystone: {"error":{"code","title","message"}}; Heat: {"error":{"type","message"},"explanation"}
  if (b.error && typeof b.error === 'object') return { fault: b.error.type ?? b.error.title ?? null, message: String(b.error.message ?? b.explanation ?? '') };
  // Octavia: {"faultcode","faultstring"}
  if (typeof b.faultstring === 'string') return { fault: b.faultcode ?? null, message: b.faultstring };
  // Nova and Cinder: {"<faultName>":{"code","message"}}
  const [name] = Object.keys(b);
  if (name && b[name] && typeof b[name] === 'object' && 'message' in b[name]) return { fault: name, message: String(b[name].message) };
  return { fault: null, message: JSON.stringify(b).slice(0, 300) };
}

/**
 * What a failed answer means for the caller. Quota errors are terminal and
 * say so, whichever way the service spells them: Nova answers 403 (but
 * for a policy refusal), Cinder
 * 413 (`overLimit`, while its rate limit is `overLimitFault`), Neutron 409
 * `OverQuota`, Octavia 403 "Quota has been met". A 429 or 503 that
 * outlasted the client's retries, and any other 5xx, is retryable.
 */
export function classify(service: ServiceType, status: number, fault: string | null, message: string): DriverErrorCode {
  const quotaWords = /quota/i.test(message) || /quota/i.test(fault ?? '');
  // Nova's 403 on a create is its OverQuota (of its own counts, or of ports it asked Neutron for:
  // "Maximum number of ports exceeded"); a policy refusal says "Policy doesn't allow".
  if (status === 403 && service === 'compute' && !/polic/i.test(message)) return 'quota';
  if (status === 403 && service === 'load-balancer' && quotaWords) return 'quota';
  if (status === 413 && fault !== 'overLimitFault') return service === 'block-storage' || quotaWords ? 'quota' : 'invalid';
  if (status === 409 && service === 'network' && (fault === 'OverQuota' || quotaWords)) return 'quota';
  if (status === 404) return 'not_found';
  if (status === 429 || status === 503 || status >= 500 || status === 408) return 'retryable';
  // 409 elsewhere: a state the resource is in right now (a server being built, a load balancer PENDING_*): a later try may pass.
  if (status === 409) return 'retryable';
  return 'invalid';
}

/** The reason a resource's row shows: which service refused, and its own words. */
export function reason(service: ServiceType, status: number, code: DriverErrorCode, message: string): string {
  const what = code === 'quota' ? 'quota exceeded' : `${status}`;
  return `${service} ${what}: ${message || 'no message'}`.slice(0, 500);
}
