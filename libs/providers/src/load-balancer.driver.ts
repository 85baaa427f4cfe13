import { isIP } from 'node:net';
import { DriverError } from './driver-error';

/**
 * How a balancer decides a backend can take connections: a TCP connect, or
 * an HTTP GET of `path` answered 2xx or 3xx. A backend that fails `fall`
 * checks in a row is taken out; one that passes `rise` in a row is put back.
 */
export interface HealthCheckSpec {
  kind: 'connect' | 'http';
  /** For `http`: the path asked for, starting with `/`. */
  path?: string;
  /**
   * The check asks this port of the backend's address rather than the
   * backend's own (an agent beside the server that says which member may
   * take traffic, as Patroni's REST API does). Such a check judges a role,
   * not only life: a backend it marks down has its open connections cut,
   * so no client stays on a server that lost the role.
   */
  port?: number;
  intervalMs?: number;
  fall?: number;
  rise?: number;
}

export const HEALTH_CHECK_DEFAULTS = { intervalMs: 2_000, fall: 3, rise: 2 } as const;

/**
 * A named listener: an address and port, TCP or HTTP by Host. Listeners
 * may share an address on different ports. Several HTTP listeners may share
 * an address and port, each with its own names; a request whose Host is
 * none of them is answered 404 by the balancer, unless one of them has
 * ANY_HOST among its names: that one takes them. A TCP port is one
 * listener's (see portTaken).
 */
export interface ListenerSpec {
  id: string;
  address: string;
  port: number;
  protocol: 'tcp' | 'http';
  /**
   * For `http`: the Host names (lower case, no port) this listener's pool
   * serves; ANY_HOST also every name no other listener on its address and
   * port has (a balancer whose address is its own, reached under names it
   * cannot know: a gateway route forwards the client's Host as it came).
   */
  hosts?: string[];
  /**
   * For `tcp`: the listener terminates TLS with this certificate (the id of a
   * stored certificate, its key kept by the provider) and forwards plain TCP.
   */
  tls?: { certificateId: number };
  check: HealthCheckSpec;
}

/** A backend is its address and port: the same address and port twice is one backend. */
export interface BackendSpec {
  address: string;
  port: number;
}

/**
 * `active` takes new connections while healthy; `draining` keeps its open
 * connections and takes no new ones; `removing` is draining on its way out,
 * gone once its last connection closed.
 */
export type BackendState = 'active' | 'draining' | 'removing';

export interface ObservedBackend extends BackendSpec {
  state: BackendState;
  /** What the balancer's checks say: `unknown` before the first check and while checks are off. */
  health: 'up' | 'down' | 'unknown';
  /** Connections open to it through the balancer now. */
  connections: number;
}

export interface ObservedListener {
  /** 'ok' while the listener serves, 'pending' before the balancer took it up, else why it does not (listenerFault). */
  status: string;
  backends: ObservedBackend[];
  /** The listener as the provider holds it, when it can say: what a reconciler compares with what it wants. */
  spec?: ListenerSpec;
}

/**
 * Why the provider says it does not serve the listener, or null while it
 * does ('ok') or is taking it up ('pending'). A caller makes a listener
 * with a fault again rather than hold it as wanted: a repeated
 * ensureListener is how a provider repairs what it can (an Octavia load
 * balancer in ERROR is replaced), and says why it cannot otherwise.
 */
export function listenerFault(seen: Pick<ObservedListener, 'status'>): string | null {
  return seen.status === 'ok' || seen.status === 'pending' ? null : seen.status;
}

/**
 * Load balancers on some provider. Every operation is keyed by the listener
 * id (and the backend's address and port), safe to repeat, and returns once
 * the change is asked for: nothing waits for a health check or for a
 * backend's connections to end; `observe` says where things stand. Changing
 * a listener's backends never cuts another backend's connections.
 */
export interface LoadBalancerDriver {
  /** Creates the listener, or brings an existing one to `spec` (its backends stay). */
  ensureListener(spec: ListenerSpec): Promise<void>;
  /** The listener and its backends go, open connections with them. Gone already: fine. */
  deleteListener(id: string): Promise<void>;
  /** Adds the backend as active, or makes a draining or removing one active again. */
  addBackend(listenerId: string, backend: BackendSpec): Promise<void>;
  /** No new connections for the backend; its open ones go on. A missing backend is a `not_found` DriverError. */
  drainBackend(listenerId: string, backend: BackendSpec): Promise<void>;
  /** Drains the backend and removes it once its last connection has closed. Gone already: fine. */
  removeBackend(listenerId: string, backend: BackendSpec): Promise<void>;
  /** null when the listener does not exist. */
  observe(id: string): Promise<ObservedListener | null>;
  /** The ids of the listeners that exist and start with `prefix`: what a reconciler compares with its records. */
  listenerIds(prefix: string): Promise<string[]>;
  /**
   * Optional: calls `onChange` with a listener's id as soon as what
   * `observe` says of it may have changed, for a caller that would otherwise
   * poll; returns what stops it. A provider that cannot say leaves it out.
   * A notice may be missed (a reconnect), so callers still poll, slowly.
   */
  watch?(onChange: (id: string) => void): () => void;
}

export const LOAD_BALANCER_DRIVER = Symbol('LOAD_BALANCER_DRIVER');

/** The Host name that stands for every name no other listener on the address and port has. */
export const ANY_HOST = '*';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
/** One word of an HTTP request line, as a balancer puts it in its check. */
const CHECK_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;

/** Why no balancer can be given the listener, or null: what every driver refuses as `invalid`. */
export function invalidListener(l: ListenerSpec): string | null {
  if (!ID.test(l.id)) return `invalid listener id ${JSON.stringify(l.id)}`;
  if (isIP(l.address) === 0 || !Number.isInteger(l.port) || l.port < 1 || l.port > 65535) return `invalid listener address ${l.address}:${l.port}`;
  if (l.protocol !== 'tcp' && l.protocol !== 'http') return `invalid protocol ${JSON.stringify(l.protocol)}`;
  if (l.protocol === 'http' && !(l.hosts ?? []).every((h) => h === ANY_HOST || HOST.test(h))) return 'invalid host name';
  if (l.check.kind !== 'connect' && l.check.kind !== 'http') return `invalid health check ${JSON.stringify(l.check.kind)}`;
  if (l.check.kind === 'http' && !CHECK_PATH.test(l.check.path ?? '')) return 'invalid health check path';
  if (l.tls !== undefined) {
    if (l.protocol !== 'tcp') return 'TLS is terminated only by tcp listeners';
    if (!Number.isInteger(l.tls?.certificateId) || l.tls.certificateId < 1) return 'invalid certificate id';
  }
  if (l.check.port !== undefined && (!Number.isInteger(l.check.port) || l.check.port < 1 || l.check.port > 65535)) return 'invalid health check port';
  for (const n of [l.check.intervalMs, l.check.fall, l.check.rise]) if (n !== undefined && (!Number.isInteger(n) || n < 1)) return 'invalid health check timing';
  return null;
}

/**
 * Why `l` cannot listen beside `other`, another id's listener, as the
 * error a driver throws before it changes anything (naming the holder), or
 * null. A port serves one protocol, and an HTTP port one listener with
 * ANY_HOST: `invalid`. A TCP port serves one listener: `retryable`, since
 * the holder is on its way out where ports are handed out one to a
 * listener (a gateway route deleted and made again on its port before its
 * old listener's delete ran), and a caller that retries takes the port
 * once it is free. (A balancer that serves the newer of two instead, as
 * the local gateway does, may take both.)
 */
export function portTaken(l: ListenerSpec, other: Pick<ListenerSpec, 'id' | 'address' | 'port' | 'protocol' | 'hosts'>): DriverError | null {
  if (other.id === l.id || other.address !== l.address || other.port !== l.port) return null;
  const where = `${l.address}:${l.port} is listener ${other.id}'s (${other.protocol})`;
  if (other.protocol !== l.protocol) return new DriverError('invalid', `${where}: a port serves one protocol`);
  if (l.protocol === 'tcp') return new DriverError('retryable', `${where}: a tcp port serves one listener`);
  if ((l.hosts ?? []).includes(ANY_HOST) && (other.hosts ?? []).includes(ANY_HOST)) {
    return new DriverError('invalid', `${where}, which already takes every Host name no other listener there has`);
  }
  return null;
}

/** Why the backend cannot be one, or null. */
export function invalidBackend(b: BackendSpec): string | null {
  return isIP(b.address) === 0 || !Number.isInteger(b.port) || b.port < 1 || b.port > 65535 ? `invalid backend ${b.address}:${b.port}` : null;
}
