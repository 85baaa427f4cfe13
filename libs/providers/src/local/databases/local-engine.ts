import { DatabaseServerSpec } from '../../databases.driver';
import { RunAs } from '../host-accounts';
import { PackageNeed } from '../system-packages';

/** Where one server lives: `<databases dir>/<key>/`, root-owned, with the database user's data inside. */
export interface ServerPaths {
  /** Control folder: pid file, log, engine settings. */
  dir: string;
  /** The engine's data, owned by the database user, mode 0700. */
  data: string;
  /** Unix sockets, owned by the database user, mode 0700. */
  run: string;
  log: string;
}

export interface ServerCommand {
  bin: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * One database engine on the local provider. The supervisor
 * (LocalDatabaseDriver) owns the process life cycle; an engine says what to
 * lay out, what to run, how to tell it is up and how to apply the spec.
 */
export interface LocalEngine {
  /** SIGINT for PostgreSQL (fast shutdown; SIGTERM waits for clients), SIGTERM for the others. */
  readonly stopSignal: NodeJS.Signals;
  /** What this host lacks for the spec, in words for status_reason; null when it can run it. */
  missing(spec: DatabaseServerSpec): Promise<string | null>;
  /** The Debian packages that would supply what `missing` reports, when there are any. */
  packagesFor?(spec: DatabaseServerSpec): PackageNeed | null;
  /** Creates the data folder and the server's settings. Runs once per server, before the first start. */
  layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void>;
  /**
   * Before a start of a server that ran before (not a fresh one): brings
   * what an earlier release laid out up to date. Runs with the server stopped.
   */
  beforeStart?(paths: ServerPaths, runAs: RunAs): Promise<void>;
  /**
   * Engines that cannot change a running server's password (no admin login
   * without it: Redis, ClickHouse) say here when the settings on disk hold
   * another verifier than the spec's; the driver then rewrites them with
   * `writeCredentials` and restarts the server. Engines that change it in
   * place do so in `configure`, and have neither.
   */
  credentialsStale?(spec: DatabaseServerSpec, paths: ServerPaths): boolean;
  writeCredentials?(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): void;
  /** The server in the foreground, as a command line. */
  command(spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand;
  /** True once the server answers on its address. */
  probe(spec: DatabaseServerSpec, paths: ServerPaths): Promise<boolean>;
  /** Applies users, databases and extensions to the running server; safe to repeat. */
  configure(spec: DatabaseServerSpec, paths: ServerPaths): Promise<void>;
  /** Present when a running server can be given its spec: the driver then keeps started spares. */
  readonly spare?: SpareSupport;
  /** Engines whose layout is slow to make keep `count` made ahead (the worker's driver asks, in keepSpares). */
  keepCopies?(count: number): void;
}

/**
 * A spare is a started server with no address, no user a client could log
 * in as and no data, reachable only on a unix socket in its `run` folder. A
 * create claims it instead of waiting for a start (LocalDatabaseDriver.keepSpares).
 */
export interface SpareSupport {
  /** Creates the data folder and the settings of a spare. */
  layOut(paths: ServerPaths, runAs: RunAs): Promise<void>;
  command(paths: ServerPaths): ServerCommand;
  /** A link to the spare once it answers on its unix socket; null while it does not. */
  connect(paths: ServerPaths): Promise<SpareLink | null>;
}

/** An open admin connection to one started spare. */
export interface SpareLink {
  /**
   * Makes the running spare the server of `spec` in one step (a client can
   * never reach it without the password), and leaves the settings a restart
   * reads in `paths` (what `layOut` writes for the spec).
   */
  claim(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void>;
  close(): void;
}
