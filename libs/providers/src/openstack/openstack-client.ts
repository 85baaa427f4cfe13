import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../driver-error';
import { classify, faultOf, OpenStackError, reason, ServiceType } from './openstack-errors';

/** How the provider proves who it is to Keystone v3. */
export type OpenStackAuth =
  | {
      kind: 'password';
      username?: string;
      userId?: string;
      password: string;
      userDomainName?: string;
      userDomainId?: string;
      projectName?: string;
      projectId?: string;
      projectDomainName?: string;
      projectDomainId?: string;
    }
  /** An application credential fixes its project: no scope is sent. */
  | { kind: 'application_credential'; id?: string; name?: string; secret: string; username?: string; userId?: string; userDomainName?: string };

export interface OpenStackCloud {
  /** Keystone's URL, with or without `/v3`. */
  authUrl: string;
  auth: OpenStackAuth;
  regionName?: string;
  /** Which endpoint of each service to use: `public` unless the cloud says otherwise. */
  interface: 'public' | 'internal' | 'admin';
}

export interface OpenStackClientOptions {
  /** A token is renewed this long before it expires, so no call carries one that lapses on the way. */
  renewBeforeMs?: number;
  /** Tries of one call answered 429/503 (or not answered) before it is a retryable DriverError. */
  maxAttempts?: number;
  /** The longest wait a Retry-After may ask for; longer ones end the call as retryable. */
  maxRetryAfterMs?: number;
  /** Per-call time limit. */
  timeoutMs?: number;
  now?: () => number;
}

/** The Nova microversion every compute call pins (Zed serves up to 2.93): tags at create (2.52), `policy` on server groups (2.64), `delete_on_termination` on attach (2.79). */
export const NOVA_MICROVERSION = '2.79';

/** Where a service's catalog type may also be registered (Cinder is often `volumev3` only). */
const TYPE_ALIASES: Record<ServiceType, string[]> = {
  identity: ['identity'],
  compute: ['compute'],
  network: ['network'],
  'block-storage': ['block-storage', 'volumev3', 'block-store', 'volume'],
  image: ['image'],
  'load-balancer': ['load-balancer'],
  orchestration: ['orchestration'],
};

/** What a service's catalog URL lacks before the API's paths. */
const VERSION_SUFFIX: Partial<Record<ServiceType, string>> = { network: '/v2.0', image: '/v2', 'load-balancer': '/v2' };

interface CatalogEntry {
  type: string;
  endpoints: Array<{ interface: string; region?: string; region_id?: string; url: string }>;
}

interface Token {
  value: string;
  expiresAt: number;
  catalog: CatalogEntry[];
  projectId: string | null;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A small client of the OpenStack APIs over Node's fetch: Keystone v3 auth
 * (password or application credential), one token renewed before it
 * expires, endpoints from the token's catalog, the pinned Nova
 * microversion, retries of 429/503 that honour Retry-After, and every
 * failure as a DriverError whose code the worker acts on. The token lives
 * in this object only; no secret is ever put in a message.
 */
export class OpenStackClient {
  private token: Token | null = null;
  private pending: Promise<Token> | null = null;
  private readonly opts: Required<OpenStackClientOptions>;
  /** Counted for tests and operators: how many tokens this client asked Keystone for. */
  authentications = 0;

  constructor(
    readonly cloud: OpenStackCloud,
    options: OpenStackClientOptions = {},
  ) {
    this.opts = {
      renewBeforeMs: options.renewBeforeMs ?? 5 * 60_000,
      maxAttempts: options.maxAttempts ?? 6,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      now: options.now ?? Date.now,
    };
  }

  /** The project the token is scoped to (the credential's, for an application credential). */
  async projectId(): Promise<string> {
    const token = await this.validToken();
    if (!token.projectId) throw new DriverError('invalid', 'the OpenStack credential is not scoped to a project; set a project in clouds.yaml or OS_PROJECT_NAME');
    return token.projectId;
  }

  /** When the token in use expires (ms since the epoch); null before the first call. */
  get tokenExpiresAt(): number | null {
    return this.token?.expiresAt ?? null;
  }

  /** The endpoint of `service` in the catalog (type or alias, interface, region: the first match wins), without a trailing slash. */
  async endpoint(service: ServiceType): Promise<string> {
    return this.endpointIn(await this.validToken(), service);
  }

  async get<T>(service: ServiceType, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>(service, 'GET', path, options)).body;
  }

  async post<T>(service: ServiceType, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>(service, 'POST', path, { ...options, body })).body;
  }

  async put<T>(service: ServiceType, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>(service, 'PUT', path, { ...options, body })).body;
  }

  /** DELETE; a resource already gone (404) is success, as every driver's delete wants. */
  async delete(service: ServiceType, path: string, options: RequestOptions = {}): Promise<void> {
    try {
      await this.request(service, 'DELETE', path, options);
    } catch (err) {
      if (err instanceof OpenStackError && err.status === 404) return;
      throw err;
    }
  }

  /**
   * One call, with its retries: a 401 re-authenticates once; a 429 (and a
   * 503, but for a POST) waits what Retry-After says (or a growing backoff)
   * and tries again, up to maxAttempts; a connection error is retried for
   * the methods that are safe to repeat (a POST is not: the job's next run
   * looks before it creates).
   */
  async request<T>(service: ServiceType, method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    let reauthenticated = false;
    for (let attempt = 1; ; attempt++) {
      const token = await this.validToken();
      const url = this.endpointIn(token, service) + path + queryString(options.query);
      const headers: Record<string, string> = { 'X-Auth-Token': token.value, Accept: 'application/json', ...options.headers };
      if (service === 'compute') headers['OpenStack-API-Version'] = `compute ${NOVA_MICROVERSION}`;
      let body: string | Buffer | undefined;
      if (options.body !== undefined) {
        body = Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs), redirect: 'follow' });
      } catch (err) {
        const what = `${service} ${method} ${path.split('?')[0]} did not answer: ${(err as Error).message}`;
        if (method !== 'POST' && attempt < this.opts.maxAttempts) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new OpenStackError('retryable', what, service, 0, null);
      }
      if (res.status === 401 && !reauthenticated) {
        // The token was revoked or expired early: one new token, one more try.
        await res.arrayBuffer().catch(() => undefined);
        reauthenticated = true;
        if (this.token === token) this.token = null;
        attempt--;
        continue;
      }
      const parsed = await readBody(res);
      if (res.ok) return { status: res.status, headers: res.headers, body: parsed as T };
      const { fault, message } = faultOf(parsed);
      const code = classify(service, res.status, fault, message);
      // A 429 is the throttle refusing the call before the service saw it: safe to send again. A 503 may
      // come after a create took effect (a proxy that gave up waiting), so a POST is not sent again: the
      // job's next run looks before it creates.
      const again = res.status === 429 || (res.status === 503 && method !== 'POST');
      if (again && attempt < this.opts.maxAttempts) {
        const wait = retryAfterMs(res.headers.get('retry-after'), this.opts.now()) ?? backoff(attempt);
        if (wait <= this.opts.maxRetryAfterMs) {
          await sleep(wait);
          continue;
        }
      }
      throw new OpenStackError(code, reason(service, res.status, code, message), service, res.status, fault);
    }
  }

  private async validToken(): Promise<Token> {
    const token = this.token;
    if (token && token.expiresAt - this.opts.renewBeforeMs > this.opts.now()) return token;
    // One authentication at a time: concurrent calls share it.
    this.pending ??= this.authenticate().finally(() => (this.pending = null));
    return this.pending;
  }

  private async authenticate(): Promise<Token> {
    const base = this.cloud.authUrl.replace(/\/+$/, '').replace(/\/v3$/, '');
    let res: Response;
    try {
      res = await fetch(`${base}/v3/auth/tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(authBody(this.cloud.auth)),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      throw new OpenStackError('retryable', `identity did not answer at ${base}: ${(err as Error).message}`, 'identity', 0, null);
    }
    const body = (await readBody(res)) as any;
    if (res.status !== 201 || !res.headers.get('x-subject-token')) {
      const { fault, message } = faultOf(body);
      // Wrong credentials will not get better by retrying.
      const code = res.status === 401 || res.status === 403 ? 'invalid' : classify('identity', res.status, fault, message);
      throw new OpenStackError(code, `identity refused the credentials (${res.status}): ${message || 'no message'}`, 'identity', res.status, fault);
    }
    this.authentications++;
    this.token = {
      value: res.headers.get('x-subject-token')!,
      expiresAt: Date.parse(body.token.expires_at),
      catalog: body.token.catalog ?? [],
      projectId: body.token.project?.id ?? null,
    };
    return this.token;
  }

  private endpointIn(token: Token, service: ServiceType): string {
    const region = this.cloud.regionName;
    for (const type of TYPE_ALIASES[service]) {
      const entry = token.catalog.find((e) => e.type === type);
      const endpoint = entry?.endpoints.find((e) => e.interface === this.cloud.interface && (!region || e.region_id === region || e.region === region));
      if (endpoint) {
        const url = endpoint.url.replace(/\/+$/, '');
        const suffix = VERSION_SUFFIX[service];
        return suffix && !url.endsWith(suffix) ? url + suffix : url;
      }
    }
    throw new DriverError('invalid', `the OpenStack catalog has no ${this.cloud.interface} ${service} endpoint${region ? ` in region ${region}` : ''}`);
  }
}

function authBody(auth: OpenStackAuth): unknown {
  if (auth.kind === 'application_credential') {
    const user = auth.userId ? { id: auth.userId } : auth.username ? { name: auth.username, domain: { name: auth.userDomainName ?? 'Default' } } : undefined;
    const credential = auth.id ? { id: auth.id, secret: auth.secret } : { name: auth.name, secret: auth.secret, user };
    return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
  }
  const user = auth.userId
    ? { id: auth.userId, password: auth.password }
    : { name: auth.username, domain: auth.userDomainId ? { id: auth.userDomainId } : { name: auth.userDomainName ?? 'Default' }, password: auth.password };
  const project = auth.projectId
    ? { id: auth.projectId }
    : auth.projectName
      ? { name: auth.projectName, domain: auth.projectDomainId ? { id: auth.projectDomainId } : { name: auth.projectDomainName ?? 'Default' } }
      : null;
  return { auth: { identity: { methods: ['password'], password: { user } }, ...(project ? { scope: { project } } : {}) } };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** 0.5 s, 1 s, 2 s, … (capped at 10 s), with some jitter so many workers do not retry in step. */
function backoff(attempt: number): number {
  const base = Math.min(10_000, 500 * 2 ** (attempt - 1));
  return base / 2 + Math.random() * (base / 2);
}
