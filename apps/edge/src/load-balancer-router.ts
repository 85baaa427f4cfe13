import pLimit from 'p-limit';
import { invalidBackend, invalidListener, type BackendState, type ListenerSpec, type ObservedBackend, type ObservedListener } from '@stratus/providers';
import { mkdirSync } from 'node:fs';
import { BalancerSpec } from './edge.types';
import { EdgeLog, HaproxyProcess, haproxyUser } from './haproxy.process';
import { balancerNames, renderBalancerConfig, serverArgs } from './load-balancer.config';

export interface LoadBalancerRouterOptions {
  /** HAProxy's files live here (a config, pid and socket per address and port). */
  dir: string;
  threads: number;
  log?: EdgeLog;
  /** How often backends on their way out are looked at again, to be deleted once they have no connection left. */
  sweepMs?: number;
}

const RESTART_DELAY_MS = 1_000;

/** One backend as HAProxy holds it now. */
interface Server {
  address: string;
  port: number;
  state: BackendState;
}

/** The HAProxy of one address and port, and what it holds. */
interface Group {
  haproxy: HaproxyProcess;
  /** Its listeners' shape as last started: a change needs a new configuration. */
  shape: string;
  listeners: Map<string, ListenerSpec>;
  /** By listener id, then by server name. */
  servers: Map<string, Map<string, Server>>;
}

/**
 * The edge's load balancers. Each address and port is an HAProxy process of
 * its own (load-balancer.config.ts): a listener created or changed starts or
 * restarts only its own address's process, never another's. Backends are
 * HAProxy dynamic servers with health checks, added, drained and removed
 * through the runtime API only: HAProxy is never reloaded for a backend, so
 * no backend change cuts another backend's connections.
 *
 * A backend that is no longer wanted is put in maintenance (no new
 * connections; its open ones go on) and deleted once it has none left
 * (HAProxy refuses to delete one with connections), looked at again every
 * `sweepMs`.
 */
export class LoadBalancerRouter {
  private readonly groups = new Map<string, Group>();
  private wanted: BalancerSpec[] = [];
  private closed = false;
  private sweeping: NodeJS.Timeout | null = null;
  /** apply, sweeps and close run one at a time, in call order. */
  private readonly serially = pLimit(1);

  constructor(private readonly opts: LoadBalancerRouterOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Serves exactly `balancers` from now on. Per listener id: 'ok' once its
   * listener serves and HAProxy took every backend change, else why not.
   * Nothing here waits for a health check.
   */
  apply(balancers: BalancerSpec[]): Promise<Record<string, string>> {
    return this.serially(async () => {
      this.wanted = balancers;
      if (this.closed) return {};
      const results: Record<string, string> = {};
      const byAddress = new Map<string, BalancerSpec[]>();
      for (const b of balancers) {
        const invalid = invalidListener(b.listener) ?? conflict(b, byAddress.get(keyOf(b.listener)) ?? []);
        if (invalid) {
          results[b.listener.id] = invalid;
          continue;
        }
        byAddress.set(keyOf(b.listener), [...(byAddress.get(keyOf(b.listener)) ?? []), b]);
      }
      for (const [key, group] of this.groups) {
        if (!byAddress.has(key)) {
          await group.haproxy.stop();
          this.groups.delete(key);
        }
      }
      for (const [key, specs] of byAddress) {
        const status = await this.ensureGroup(
          key,
          specs.map((s) => s.listener),
        );
        for (const spec of specs) results[spec.listener.id] = status === 'ok' ? await this.reconcile(this.groups.get(key)!, spec) : status;
      }
      this.scheduleSweep();
      return results;
    });
  }

  /** The ids of the listeners it serves now. */
  get listenerIds(): string[] {
    return this.wanted.map((b) => b.listener.id);
  }

  /** Where the listener's backends stand: HAProxy's own view of their health and connections. null when it is not wanted. */
  async observe(listenerId: string): Promise<ObservedListener | null> {
    const spec = this.wanted.find((b) => b.listener.id === listenerId);
    if (!spec) return null;
    const group = this.groups.get(keyOf(spec.listener));
    const servers = group?.servers.get(listenerId);
    if (!group || !servers || !group.haproxy.serving) {
      const status = invalidListener(spec.listener) ?? group?.haproxy.status ?? 'pending';
      return { status, backends: spec.backends.map((b) => ({ address: b.address, port: b.port, state: b.state, health: 'unknown', connections: 0 })) };
    }
    const backend = balancerNames.backend(listenerId);
    const [state, stat] = await Promise.all([group.haproxy.command(`show servers state ${backend}`), group.haproxy.command(`show stat ${backend} 4 -1`)]);
    const ops = new Map(
      state
        .split('\n')
        .filter((l) => /^\d/.test(l))
        .map((l) => l.split(' '))
        // be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state ...
        .map((f) => [f[3], { op: Number(f[5]), admin: Number(f[6]) }]),
    );
    const rows = csvRows(stat);
    const backends: ObservedBackend[] = [];
    for (const [name, server] of servers) {
      const row = rows.get(name);
      const op = ops.get(name);
      const maint = op ? (op.admin & ADMIN_MAINT) !== 0 : true;
      const checked = row?.check_status !== undefined && row.check_status !== '' && !row.check_status.startsWith('INI');
      backends.push({
        address: server.address,
        port: server.port,
        state: server.state,
        // Running (2) or stopping (3: going down, still taking connections) is up; stopped (0) is down.
        health: maint || !checked || !op ? 'unknown' : op.op === 0 ? 'down' : 'up',
        connections: Number(row?.scur ?? 0),
      });
    }
    return { status: 'ok', backends };
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.sweeping) clearTimeout(this.sweeping);
    return this.serially(async () => {
      await Promise.all([...this.groups.values()].map((g) => g.haproxy.stop()));
      this.groups.clear();
    });
  }

  /** Starts the address's HAProxy, or starts it again when its listeners changed shape or it is not serving. */
  private async ensureGroup(key: string, listeners: ListenerSpec[]): Promise<string> {
    const shape = JSON.stringify(listeners.map(shapeOf).sort());
    let group = this.groups.get(key);
    if (group && group.shape === shape && group.haproxy.serving) {
      group.listeners = new Map(listeners.map((l) => [l.id, l]));
      return 'ok';
    }
    if (!group) {
      const haproxy = new HaproxyProcess({
        dir: this.opts.dir,
        name: `lb-${key.replace(/[.:]/g, '_')}`,
        log: this.opts.log,
        // Health checks taking a backend out or putting it back, and backends set in maintenance: news for `observe`, not for the log.
        routine: /\[(WARNING|ALERT)\].*(is DOWN|is UP|going DOWN for maintenance|leaving forced maintenance|has no server available|is back up|(Server|Backend) .* is (DOWN|UP))/,
        onCrash: () =>
          setTimeout(() => {
            if (!this.closed) this.apply(this.wanted).catch(() => undefined);
          }, RESTART_DELAY_MS).unref(),
      });
      group = { haproxy, shape: '', listeners: new Map(), servers: new Map() };
      this.groups.set(key, group);
    }
    const { address, port } = listeners[0];
    // A new process holds no servers: every backend is added again below.
    group.servers.clear();
    group.shape = shape;
    group.listeners = new Map(listeners.map((l) => [l.id, l]));
    const started = await group.haproxy.start(renderBalancerConfig({ address, port, listeners, threads: this.opts.threads, socket: group.haproxy.socket, runAs: haproxyUser() }));
    if (started !== 'ok') group.shape = '';
    else this.opts.log?.('info', 'load balancer listening', { address, port, listeners: listeners.map((l) => l.id) });
    return started;
  }

  /** Brings one listener's servers to its wanted backends. */
  private async reconcile(group: Group, spec: BalancerSpec): Promise<string> {
    const backend = balancerNames.backend(spec.listener.id);
    let servers = group.servers.get(spec.listener.id);
    if (!servers) group.servers.set(spec.listener.id, (servers = new Map()));
    const failures: string[] = [];
    const run = async (command: string, ok: RegExp): Promise<boolean> => {
      const answer = (await group.haproxy.command(command).catch((err: Error) => err.message)).trim();
      if (ok.test(answer)) return true;
      failures.push(`${command.split(' ').slice(0, 3).join(' ')}: ${answer}`);
      return false;
    };
    const wanted = new Map<string, BalancerSpec['backends'][number]>();
    for (const b of spec.backends) {
      const invalid = invalidBackend(b);
      if (invalid) failures.push(invalid);
      else wanted.set(balancerNames.server(b.address, b.port), b);
    }
    for (const [name, b] of wanted) {
      const server = `${backend}/${name}`;
      const held = servers.get(name);
      if (held?.state === b.state) continue;
      if (!held) {
        // Created in maintenance with checks off (HAProxy's rule for dynamic servers): checks on, then in service.
        const added = await run(`add server ${server} ${serverArgs(spec.listener, b.address, b.port)}`, /New server registered|Already exists a server/);
        if (!added || !(await run(`enable health ${server}`, /^$/))) continue;
      }
      // From maintenance straight to draining or ready (HAProxy clears one admin state for the other).
      if (await run(`set server ${server} state ${b.state === 'active' ? 'ready' : 'drain'}`, /^$/)) servers.set(name, { address: b.address, port: b.port, state: b.state });
    }
    for (const [name, held] of servers) {
      if (wanted.has(name) || held.state === 'removing') continue;
      // No new connections from now on; the open ones go on until their ends close them.
      if (await run(`set server ${backend}/${name} state maint`, /^$/)) held.state = 'removing';
    }
    await this.deleteEmpty(group, spec.listener.id);
    return failures.length ? `haproxy: ${failures.join('; ')}` : 'ok';
  }

  /** Deletes the listener's servers on their way out that have no connection left. */
  private async deleteEmpty(group: Group, listenerId: string): Promise<void> {
    const servers = group.servers.get(listenerId);
    if (!servers) return;
    for (const [name, held] of servers) {
      if (held.state !== 'removing') continue;
      const answer = await group.haproxy.command(`del server ${balancerNames.backend(listenerId)}/${name}`).catch((err: Error) => err.message);
      // Refused while it still has connections: tried again at the next sweep.
      if (/Server deleted|No such server/.test(answer)) servers.delete(name);
    }
  }

  private scheduleSweep(): void {
    if (this.closed || this.sweeping) return;
    const pending = [...this.groups.values()].some((g) => [...g.servers.values()].some((s) => [...s.values()].some((v) => v.state === 'removing')));
    if (!pending) return;
    this.sweeping = setTimeout(() => {
      this.sweeping = null;
      this.serially(async () => {
        for (const group of this.groups.values()) {
          if (!group.haproxy.serving) continue;
          for (const listenerId of group.servers.keys()) await this.deleteEmpty(group, listenerId);
        }
        this.scheduleSweep();
      }).catch(() => undefined);
    }, this.opts.sweepMs ?? 1_000);
    this.sweeping.unref();
  }
}

/** HAProxy's admin state bits for maintenance (forced, inherited, from DNS resolution). */
const ADMIN_MAINT = 0x01 | 0x02 | 0x04 | 0x20;

const keyOf = (l: ListenerSpec) => `${l.address}:${l.port}`;

/** What needs a new configuration when it changes: everything of a listener but its backends. */
function shapeOf(l: ListenerSpec): string {
  return JSON.stringify([l.id, l.protocol, [...(l.hosts ?? [])].sort(), l.check.kind, l.check.path ?? null]);
}

/** Why the balancer cannot share its address and port with those already there, or null. */
function conflict(b: BalancerSpec, there: BalancerSpec[]): string | null {
  const other = there[0]?.listener;
  if (!other) return null;
  if (other.protocol === 'tcp' || b.listener.protocol === 'tcp') return `${keyOf(b.listener)} is listener ${other.id}'s`;
  const taken = new Set(there.flatMap((t) => t.listener.hosts ?? []));
  const twice = (b.listener.hosts ?? []).find((h) => taken.has(h));
  return twice ? `host ${twice} on ${keyOf(b.listener)} is another listener's` : null;
}

/** `show stat` CSV rows by server name. */
function csvRows(csv: string): Map<string, Record<string, string>> {
  const lines = csv.split('\n').filter((l) => l.trim());
  const header = lines.shift()?.replace(/^# /, '').split(',') ?? [];
  return new Map(
    lines.map((line) => {
      const f = line.split(',');
      const row = Object.fromEntries(header.map((h, i) => [h, f[i] ?? '']));
      return [row.svname, row];
    }),
  );
}
