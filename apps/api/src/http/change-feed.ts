import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppConfig, Unavailable, WatchedTable } from '@stratus/core';
import { Client } from 'pg';

/** Seconds a client turned away by the waiter cap is told to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** One long poll's ear on a table (and project): `changed` resolves when a row of it may have changed. */
export class Watch {
  private dirty = false;
  private wake: (() => void) | null = null;
  closed = false;

  constructor(private readonly release: (watch: Watch) => void) {}

  /** Called by the feed: something this watch covers changed (or may have: a reconnect). */
  poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  /**
   * Resolves true at the first change since the last call (at once if one
   * came meanwhile), false after `ms` or when the watch is closed.
   */
  async changed(ms: number): Promise<boolean> {
    if (!this.dirty && !this.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    const seen = this.dirty && !this.closed;
    this.dirty = false;
    return seen;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    this.release(this);
  }
}

/** Event rows a look reads at most; more is a burst a look cannot attribute cheaply, so every watch looks again. */
const LOOK_LIMIT = 5_000;

/**
 * The events of the transactions that committed since the last look
 * (change-channel.ts), and the horizon the next look starts from: the
 * oldest transaction still running at this look's snapshot. One statement,
 * so both come from the same snapshot.
 */
const LOOK = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
  COALESCE((SELECT json_agg(json_build_array(e.id::text, e.xid::text, e.table_name, e.project_id))
              FROM (SELECT id, xid, table_name, project_id FROM change_events WHERE xid >= COALESCE($1::xid8, pg_snapshot_xmin(pg_current_snapshot())) ORDER BY xid LIMIT ${LOOK_LIMIT + 1}) e), '[]') AS events`;

/**
 * The api's one reader of the change events (change-channel.ts), shared by
 * every long poll of the process: a waiting poll holds no pooled connection
 * and no query, only a Watch here, poked when an event names its table and
 * project. While any poll waits, the feed looks every CHANGE_FEED_POLL_MS on
 * its own connection for the events of transactions that committed since
 * its last look; with none waiting it does not look at all. The connection
 * is made at the first long poll, and made again when lost; every watch is
 * poked then, since what happened meanwhile was not heard.
 */
@Injectable()
export class ChangeFeed implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ChangeFeed.name);
  /** By `<table>:<project id>`, or `<table>:*` for a watch of every project's rows. */
  private readonly watches = new Map<string, Set<Watch>>();
  private waiting = 0;
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private stopping = false;
  /**
   * Where the next look starts: every transaction with an older id had
   * ended at the last look, so its events were read then. null while the
   * feed does not look (no poll waits): the first watch takes a horizon again.
   */
  private horizon: bigint | null = null;
  /** Events read already whose transactions are not older than the horizon (a later look reads them again). */
  private readonly seen = new Map<string, bigint>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly config: AppConfig) {}

  /**
   * A watch of `table`'s rows of `projectId` (every project's when
   * undefined), hearing every change committed once this resolves. A 503
   * when the process already holds LONG_POLL_MAX_WAITERS, or PostgreSQL
   * cannot be reached.
   */
  async watch(table: WatchedTable, projectId: string | undefined): Promise<Watch> {
    if (this.stopping) throw new Unavailable('the api is shutting down; try again');
    if (this.waiting >= this.config.LONG_POLL_MAX_WAITERS) throw new Unavailable(`wait: ${this.waiting} long polls are waiting already; try again shortly`);
    await this.listening();
    const key = `${table}:${projectId ?? '*'}`;
    this.waiting++;
    const watch = new Watch((w) => {
      this.waiting--;
      const set = this.watches.get(key);
      set?.delete(w);
      if (set?.size === 0) this.watches.delete(key);
    });
    let set = this.watches.get(key);
    if (!set) this.watches.set(key, (set = new Set()));
    set.add(watch);
    this.schedule();
    return watch;
  }

  /** Long polls held now. */
  get held(): number {
    return this.waiting;
  }

  /**
   * Before the server closes, which waits for every request under way: each
   * poll answers with what it has (304), so a stop is not held up by
   * minute-long waits (in onApplicationShutdown, after the close, it was).
   */
  beforeApplicationShutdown(): void {
    this.stopping = true;
    for (const set of this.watches.values()) for (const w of [...set]) w.close();
    this.stopLooking();
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }

  /** Connected, with a horizon: a change that commits from now on is read by a later look. */
  private listening(): Promise<void> {
    if (this.client && this.horizon !== null) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    let client = this.client;
    if (!client) {
      client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'stratus-api-changes', connectionTimeoutMillis: 5_000 });
      const made = client;
      made.on('error', (err) => this.lost(made, err));
      made.on('end', () => this.lost(made, new Error('connection ended')));
    }
    try {
      if (!this.client) await client.connect();
      this.client = client;
      await this.look(client);
    } catch (err) {
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      this.logger.warn({ err: String(err) }, 'cannot read changes');
      throw new Unavailable('wait: PostgreSQL is unavailable; try again shortly');
    }
    if (this.stopping) {
      this.client = null;
      await client.end().catch(() => undefined);
    }
  }

  /** Looks again in CHANGE_FEED_POLL_MS while any poll waits; with none, stops and forgets the horizon. */
  private schedule(): void {
    if (this.timer || this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const client = this.client;
      if (!client || this.stopping) return;
      if (this.watches.size === 0) return this.stopLooking();
      this.look(client).then(
        () => this.schedule(),
        (err) => this.lost(client, err as Error),
      );
    }, this.config.CHANGE_FEED_POLL_MS);
  }

  private stopLooking(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.horizon = null;
    this.seen.clear();
  }

  /**
   * Reads the events of transactions not older than the horizon, pokes the
   * watches of those not read before, and moves the horizon to this look's.
   * The first look (no horizon yet) pokes nobody: what it reads committed
   * before any watch it serves began, and is only noted as read.
   */
  private async look(client: Client): Promise<void> {
    const first = this.horizon === null;
    const { rows } = await client.query<{ horizon: string; events: Array<[string, string, string, string]> }>(LOOK, [first ? null : this.horizon!.toString()]);
    const horizon = BigInt(rows[0].horizon);
    const events = rows[0].events;
    if (events.length > LOOK_LIMIT && !first) {
      // A burst too large to sort out: every waiting poll looks again, which is never wrong.
      for (const set of this.watches.values()) for (const w of set) w.poke();
    }
    for (const [id, xid, table, project] of events.slice(0, LOOK_LIMIT)) {
      if (this.seen.has(id)) continue;
      this.seen.set(id, BigInt(xid));
      if (!first) for (const key of [`${table}:${project}`, `${table}:*`]) for (const w of this.watches.get(key) ?? []) w.poke();
    }
    for (const [id, xid] of this.seen) if (xid < horizon) this.seen.delete(id);
    this.horizon = horizon;
  }

  /** The next watch reconnects; those waiting now look again, since a change may have gone unheard. */
  private lost(client: Client, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.stopLooking();
    client.end().catch(() => undefined);
    if (this.stopping) return;
    this.logger.warn({ err: String(err) }, 'lost the change feed; reconnecting');
    this.reconnect();
  }

  /** Waiting polls need the feed back to hear the next change: tried every second while any waits. */
  private reconnect(): void {
    if (this.stopping || this.watches.size === 0) return;
    this.listening().then(
      () => {
        // What changed while nobody read was not heard: every waiting poll looks again.
        for (const set of this.watches.values()) for (const w of set) w.poke();
        this.schedule();
      },
      () => setTimeout(() => this.reconnect(), 1_000).unref(),
    );
  }
}
