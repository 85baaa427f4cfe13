import pLimit from 'p-limit';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostSpec } from './edge.types';
import { HAPROXY_LUA, HaproxyFiles, renderHaproxyConfig, renderHostMap } from './haproxy.config';
import { EdgeLog, HaproxyProcess, haproxyUser } from './haproxy.process';
import { replaceMap } from './haproxy.runtime';

export interface HostRouterOptions {
  /** HAProxy's files live here (config, map, Lua, pid). */
  dir: string;
  /** HAProxy threads. */
  threads: number;
  log?: EdgeLog;
}

const RESTART_DELAY_MS = 1_000;

/**
 * The HTTP listener for proxy hosts: an HAProxy process the edge writes the
 * configuration of, starts, and keeps running (haproxy.config.ts says what
 * it does with a request). Proxy hosts change through HAProxy's runtime API
 * without a reload; the listener's address changes by a restart. HAProxy
 * outlives neither the router (close) nor a crashed edge (the next start
 * stops the one its pid file names).
 */
export class HostRouter {
  private readonly files: HaproxyFiles;
  private readonly haproxy: HaproxyProcess;
  private where: { host: string; port: number } | null = null;
  private lines: string[] = [];
  private closed = false;
  /** listen and setHosts run one at a time, in call order (a failed one does not stop the next). */
  private readonly serially = pLimit(1);

  constructor(private readonly opts: HostRouterOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.haproxy = new HaproxyProcess({
      dir: opts.dir,
      name: 'haproxy',
      log: opts.log,
      onCrash: () =>
        setTimeout(() => {
          if (!this.closed && this.where) this.serially(() => this.start()).catch(() => undefined);
        }, RESTART_DELAY_MS).unref(),
    });
    this.files = { config: this.haproxy.config, map: join(opts.dir, 'hosts.map'), lua: join(opts.dir, 'edge.lua'), socket: this.haproxy.socket };
  }

  /** 'ok' when HAProxy serves on the listener, else why not; null when there is no listener to have. */
  get status(): string | null {
    return this.where ? this.haproxy.status : null;
  }

  /** Binds (or rebinds) the listener; resolves with 'ok' or the reason it is not bound. */
  listen(where: { host: string; port: number } | null): Promise<string | null> {
    return this.serially(async () => {
      if (!where) return null;
      if (this.haproxy.serving && this.where?.host === where.host && this.where.port === where.port) return 'ok';
      this.where = where;
      return this.start();
    });
  }

  /** Sends each proxy host's name to its instance address and port from now on. */
  setHosts(hosts: HostSpec[]): Promise<void> {
    return this.serially(async () => {
      const lines = renderHostMap(hosts);
      if (lines.join('\n') === this.lines.join('\n')) return;
      // A running HAProxy changes in place; a (re)start loads the map file written from `lines`.
      if (this.haproxy.serving) await replaceMap(this.files.socket, this.files.map, lines);
      // Only now: a failed replace is tried again with the next set, even an equal one.
      this.lines = lines;
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.serially(() => this.haproxy.stop());
  }

  private start(): Promise<string> {
    // Read by HAProxy only as it starts, and written anew before every start.
    const write = (path: string, content: string) => writeFileSync(path, content, { mode: 0o600 });
    write(this.files.lua, HAPROXY_LUA);
    write(this.files.map, this.lines.map((l) => `${l}\n`).join(''));
    return this.haproxy.start(renderHaproxyConfig({ bind: this.where!, threads: this.opts.threads, files: this.files, runAs: haproxyUser() }));
  }
}
