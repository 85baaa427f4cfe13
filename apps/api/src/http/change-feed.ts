import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppConfig, CHANGE_CHANNEL, Unavailable, WatchedTable } from '@stratus/core';
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

/**
 * The api's one LISTEN on the change channel (change-channel.ts), shared by
 * every long poll of the process: a waiting poll holds no pooled connection
 * and no query, only a Watch here, poked when a notification names its table
 * and project. The connection is made at the first long poll, and made again
 * when lost; every watch is poked then, since what happened meanwhile was
 * not heard.
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

  constructor(private readonly config: AppConfig) {}

  /**
   * A watch of `table`'s rows of `projectId` (every project's when
   * undefined), listening once this resolves. A 503 when the process
   * already holds LONG_POLL_MAX_WAITERS, or PostgreSQL cannot be reached.
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
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private listening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'stratus-api-changes', connectionTimeoutMillis: 5_000 });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (n) => this.heard(n.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (err) {
      client.end().catch(() => undefined);
      this.logger.warn({ err: String(err) }, 'cannot listen for changes');
      throw new Unavailable('wait: PostgreSQL is unavailable; try again shortly');
    }
    if (this.stopping) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // After a reconnect: what changed while nobody listened was not heard, so every waiting poll looks again.
    for (const set of this.watches.values()) for (const w of set) w.poke();
  }

  private heard(payload: string): void {
    const colon = payload.indexOf(':');
    if (colon < 0) return;
    const table = payload.slice(0, colon);
    for (const key of [payload, `${table}:*`]) for (const w of this.watches.get(key) ?? []) w.poke();
  }

  /** The next watch reconnects; those waiting now look again, since a change may have gone unheard. */
  private lost(client: Client, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.stopping) return;
    this.logger.warn({ err: String(err) }, 'lost the change feed; reconnecting');
    this.reconnect();
  }

  /** Waiting polls need the feed back to hear the next change: tried every second while any waits. */
  private reconnect(): void {
    if (this.stopping || this.watches.size === 0) return;
    this.listening().catch(() => setTimeout(() => this.reconnect(), 1_000).unref());
  }
}
