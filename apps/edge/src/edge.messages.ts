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
