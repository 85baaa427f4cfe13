import { DatabaseEngine } from '@stratus/core';
import { HostAccounts } from './host-accounts';
import { PacketFilter, ServerPeer } from './packet-filter';

/** An ha database as the packet filter needs it. */
export interface HaPeers {
  engine: DatabaseEngine;
  address: string;
  port: number;
  memberAddresses: string[];
}

/**
 * What only the local provider has, kept out of the shared driver
 * interfaces: its processes tell it when they exit (so status follows at
 * once rather than at the next sweep), its database driver keeps spare
 * servers, and security groups are its host's packet filter over its host
 * accounts. The worker injects this with `@Optional()` and does without it
 * under any other provider.
 */
/** What becomes of the spare database servers a worker keeps, for its log. */
export interface SpareEvents {
  /** A spare could not be started, or a claim of one failed (the create then starts its own server). */
  error(engine: DatabaseEngine, err: Error): void;
  /** A spare is up and in the pool: a create may claim it. */
  ready?(engine: DatabaseEngine, spare: string): void;
  /** A start of the server `key` took the spare. */
  claimed?(engine: DatabaseEngine, spare: string, key: string): void;
}

export interface LocalHooks {
  /** Called when an instance process this worker started exits. */
  onInstanceExit(listener: (id: string) => void): void;
  /** Called when a database server this worker started exits (by server key). */
  onDatabaseExit(listener: (key: string) => void): void;
  /**
   * Keeps `count` spare database servers of each engine made ahead of
   * creates (LocalDatabaseDriver.keepSpares); resolves once the first are up.
   */
  keepDatabaseSpares(count: number, events: SpareEvents): Promise<void>;
  /** Stops the spares keepDatabaseSpares started; servers keep running. */
  closeDatabaseSpares(): Promise<void>;
  /** The installation's host accounts (instance users, the database user). */
  readonly accounts: HostAccounts;
  /** The installation's packet filter (security groups). */
  readonly packetFilter: PacketFilter;
  /** What the servers of an ha database open to one another (its members, its consensus store): the packet filter lets them, and only them. */
  databasePeers(database: HaPeers): ServerPeer[];
}

export const LOCAL_HOOKS = Symbol('LOCAL_HOOKS');
