import { DatabaseEngine, PostgresExtension } from '@stratus/core';

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
}

export interface ObservedDatabaseServer {
  running: boolean;
}

/**
 * Database servers on some provider, every engine behind one interface.
 * Operations are keyed by the server key and safe to repeat: `ensureRunning`
 * lays out only what is missing and starts the server only when it is not
 * running; `delete` of something already gone succeeds. What the host cannot
 * provide (an engine, a version, an extension, HA) is a terminal DriverError
 * whose message names it, and nothing half-made is left behind.
 */
export interface DatabaseDriver {
  /** null when nothing of this server exists on the provider. */
  observe(key: string): Promise<ObservedDatabaseServer | null>;
  /** Resolves once the server accepts connections with the spec applied. */
  ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer>;
  /** Stops the server and removes its data. */
  delete(key: string): Promise<void>;
}

export const DATABASE_DRIVER = Symbol('DATABASE_DRIVER');
