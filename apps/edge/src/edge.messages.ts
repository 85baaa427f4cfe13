/** What the edge primary tells its workers, and what they answer. Plain data over the cluster IPC channel. */

export interface RouteSpec {
  port: number;
  targetIp: string;
  targetPort: number;
  /** PEMs when the route terminates TLS; they travel only over the local IPC pipe. */
  tls: { certPem: string; keyPem: string; certificateId: number } | null;
}

export interface HostSpec {
  hostname: string;
  ip: string;
  port: number;
}

export interface DesiredState {
  type: 'state';
  version: number;
  gatewayHost: string;
  routes: RouteSpec[];
}

/** Per port: 'ok' when the listener is bound, else the bind error. */
export interface WorkerStatus {
  type: 'status';
  version: number;
  routes: Record<number, string>;
}

/** A worker's open gateway connections, sent when the number changed (at most every LOAD_REPORT_MS). */
export interface WorkerLoad {
  type: 'load';
  connections: number;
}

/** Every worker's open gateway connections by worker id, from the primary to each worker. */
export interface LoadView {
  type: 'loads';
  connections: Record<number, number>;
}

/** A connection accepted on `port` and passed on unread: the socket travels as the message's handle. */
export interface Handoff {
  type: 'handoff';
  port: number;
  to: number;
}

/** How often, at most, load reports and load views go out. */
export const LOAD_REPORT_MS = 10;

/**
 * An accepted connection's libuv TCP handle, with nothing reading it: what
 * travels between workers, and what a relay wraps in sockets of its own
 * making. Node has no public type or API for it (see `detachHandle`).
 */
export interface TcpHandle {
  close(): void;
}
