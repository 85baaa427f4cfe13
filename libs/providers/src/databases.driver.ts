import { DatabaseEngine, PostgresExtension } from '@stratus/core';
import { HealthCheckSpec, LoadBalancerDriver } from './load-balancer.driver';

/** What the provider must run for one managed database server. Secrets appear only as verifiers. */
export interface DatabaseServerSpec {
  /** Stable key of the server on the provider (`<engine>-<id>`). */
  key: string;
  engine: DatabaseEngine;
  /** Requested engine version; null for engines with one version (the host's). */
  version: string | null;
  address: string;
  port: number;
  dbName: string | null;
  dbUser: string | null;
  /** PostgreSQL SCRAM-SHA-256 verifier, or SHA-256 hex for Redis and ClickHouse. */
  passwordVerifier: string;
  superuser: boolean;
  extensions: PostgresExtension[];
  ha: boolean;
  /**
   * Empty unless `ha`: one address per member (three), given by the
   * network like `address`, which is then the load-balancer listener in front of them.
   */
  memberAddresses: string[];
}

/** One server of a high-availability database, as last observed. */
export interface ObservedDatabaseMember {
  address: string;
  role: 'primary' | 'replica';
  health: 'up' | 'down';
  /** How far it is behind the primary, where the engine tells it; null for the primary or when unknown. */
  lag: { value: number; unit: 'bytes' | 'seconds' } | null;
}

export interface ObservedDatabaseServer {
  /** Something of the server runs (starting or started). */
  running: boolean;
  /** It accepts connections with the spec applied: the database may be called ready. */
  ready: boolean;
  /** What is being done meanwhile, in words for status_reason ("installing clickhouse-server (...)"); absent when only starting. */
  step?: string;
  /** ha only: every member, primary first. */
  members?: ObservedDatabaseMember[];
  /** ha only: a member is down while the address still serves. */
  degraded?: boolean;
}

/**
 * Database servers on some provider, every engine behind one interface, in
 * the controller-runtime shape of compute: operations are keyed by the
 * server key, safe to repeat, and do not wait for a server to start.
 * `ensureRunning` lays out only what is missing, starts the server only when
 * it is not running, and says how far it got (`ready: false` while it
 * starts); callers come back until `ready`. `delete` of something already
 * gone succeeds. What the host cannot provide (an engine, a version, an
 * extension, HA), a server that exits while starting or does not start
 * within the provider's timeout, is a terminal DriverError whose message
 * names it, and a server that never came up leaves nothing behind.
 */
export interface DatabaseDriver {
  /** null when nothing of this server exists on the provider. */
  observe(key: string): Promise<ObservedDatabaseServer | null>;
  /** Starts what is missing and applies the spec once the server accepts connections; `ready` then. */
  ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer>;
  /** Stops the server and removes its data. */
  delete(key: string): Promise<void>;
}

export const DATABASE_DRIVER = Symbol('DATABASE_DRIVER');

/** The load-balancer listener of an ha database, on its own address and port: one id on every provider. */
export function haListenerId(key: string): string {
  return `dbha-${key}`;
}

/**
 * The listener of an ha database on the balancer: on the database's own
 * address and port, `check` deciding which member takes connections, every
 * member an active backend (one drained or removed outside is made active again).
 */
export async function keepHaListener(balancer: LoadBalancerDriver, spec: DatabaseServerSpec, check: HealthCheckSpec): Promise<void> {
  const id = haListenerId(spec.key);
  await balancer.ensureListener({ id, address: spec.address, port: spec.port, protocol: 'tcp', check });
  const held = await balancer.observe(id);
  for (const address of spec.memberAddresses) {
    if (!held?.backends.some((b) => b.address === address && b.port === spec.port && b.state === 'active')) await balancer.addBackend(id, { address, port: spec.port });
  }
}

/** Patroni's REST API on each member's address of an ha PostgreSQL: the balancer's health check asks `/primary` here. */
export const PATRONI_REST_PORT = 8008;
/** etcd's client and peer ports, where an ha PostgreSQL's consensus store listens. */
export const ETCD_CLIENT_PORT = 2379;
export const ETCD_PEER_PORT = 2380;

/** The balancer's check of an ha PostgreSQL: only the member whose Patroni says it is the primary takes connections. */
export const HA_POSTGRES_CHECK: HealthCheckSpec = { kind: 'http', path: '/primary', port: PATRONI_REST_PORT, intervalMs: 500, fall: 2, rise: 1 };
