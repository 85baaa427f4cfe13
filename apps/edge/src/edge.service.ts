import { AppConfig, BALANCER_STATUS_CHANNEL, CertificateVault, createLogger, EDGE_CHANNEL } from '@stratus/core';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { BalancerSpec, HostSpec, RouteSpec } from './edge.types';
import { GatewayRouter } from './gateway-router';
import { EdgeLog } from './haproxy.process';
import { HostRouter } from './host-router';
import { LoadBalancerRouter } from './load-balancer-router';

/** A listener's verdict while it has nothing to serve yet (a gateway listener without its backend): neither bound nor failed. */
const PENDING = 'pending';

/**
 * The edge: reads the desired load balancers from PostgreSQL (LISTEN for
 * prompt changes, plus a full resync on a timer), hands the gateway's
 * listeners (gateway routes, one backend each) to the gateway's HAProxy
 * (gateway-router.ts), the HTTP listener's (proxy hosts, one backend each)
 * to its Host map (host-router.ts) and the other load balancers to theirs
 * (load-balancer-router.ts), as the driver wrote which router each is
 * (load_balancers.router), and writes back what is bound
 * (load_balancers.bound_at / bind_error, edge_nodes) and what HAProxy says
 * of each load-balancer backend. No traffic passes through this
 * process: when PostgreSQL, the api or the worker stop, both HAProxy
 * processes keep serving the last state.
 */
export class EdgeService {
  private readonly name = `${hostname()}:${process.pid}`;
  private readonly startedAt = new Date();
  private readonly vault: CertificateVault;
  private db: Client | null = null;
  private connecting = false;
  private reloading: Promise<void> | null = null;
  private dirty = false;
  private stopping = false;
  /** pollHealth's last view of each balancer's backends, so an unchanged one costs no write. */
  private readonly lastHealth = new Map<string, string>();
  private polling = false;
  /** Threads of each HAProxy. */
  private readonly threads: number;
  private readonly gateway: GatewayRouter;
  private readonly router: HostRouter;
  private readonly balancers: LoadBalancerRouter;
  /** The last reasons a listener was not bound, said once rather than at every resync. */
  private readonly said = new Map<string, string>();
  private readonly log: EdgeLog;

  constructor(private readonly config: AppConfig) {
    const logger = createLogger('edge', config.LOG_LEVEL);
    this.log = (level, msg, extra = {}) => logger[level](extra, msg);
    this.vault = CertificateVault.fromDataDir(config.DATA_DIR);
    this.threads = config.EDGE_THREADS || Math.max(1, Math.min(cpus().length, 8));
    const dir = join(config.DATA_DIR, 'edge');
    this.router = new HostRouter({ dir, threads: this.threads, log: this.log });
    this.balancers = new LoadBalancerRouter({ dir: join(dir, 'balancers'), threads: this.threads, log: this.log });
    this.gateway = new GatewayRouter({
      dir: join(dir, 'gateway'),
      host: config.GATEWAY_HOST,
      range: config.gatewayPorts,
      threads: this.threads,
      log: this.log,
      // Down: said at once (health, and creates meanwhile); back: what it serves recorded.
      onChange: () => void (this.gateway.status === 'ok' ? this.reload() : this.heartbeat().catch(() => undefined)),
    });
  }

  async start(): Promise<void> {
    await this.connect();
    // reload() and connect() never reject: each logs its own failure and retries.
    setInterval(() => void this.reload(), this.config.EDGE_RESYNC_INTERVAL_MS).unref();
    setInterval(() => void this.pollHealth(), this.config.EDGE_HEALTH_POLL_MS).unref();
    // SIGHUP too: a closed terminal must not leave the HAProxy processes running.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => this.stop());
    this.log('info', 'edge started', { threads: this.threads, http: `${this.config.EDGE_HTTP_HOST}:${this.config.EDGE_HTTP_PORT}`, gateway: this.config.GATEWAY_PORT_RANGE });
  }

  private async connect(): Promise<void> {
    if (this.connecting || this.stopping) return;
    this.connecting = true;
    const db = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'stratus-edge' });
    try {
      db.on('error', (err) => this.lost(db, err));
      db.on('end', () => this.lost(db, new Error('connection ended')));
      await db.connect();
      await db.query(`LISTEN ${EDGE_CHANNEL}`);
      db.on('notification', () => void this.reload());
      this.db = db;
      this.log('info', 'edge connected to PostgreSQL');
      await this.reload();
    } catch (err) {
      // Connected but LISTEN refused, say: this client goes; the next attempt makes its own.
      if (this.db !== db) db.end().catch(() => undefined);
      this.log('warn', 'PostgreSQL unreachable; serving the last known state', { err: String(err) });
      setTimeout(() => void this.connect(), 1_000).unref();
    } finally {
      this.connecting = false;
    }
  }

  private lost(db: Client, err: Error): void {
    if (this.db !== db) return;
    this.db = null;
    db.end().catch(() => undefined);
    if (this.stopping) return;
    this.log('warn', 'lost PostgreSQL; serving the last known state', { err: String(err) });
    setTimeout(() => void this.connect(), 1_000).unref();
  }

  /** Coalesces: one reload at a time, and one more if anything changed meanwhile. */
  private reload(): Promise<void> {
    if (this.reloading) {
      this.dirty = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.dirty = false;
        try {
          await this.loadAndApply();
        } catch (err) {
          this.log('warn', 'edge resync failed', { err: String(err) });
        }
      } while (this.dirty && this.db);
    })().finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async loadAndApply(): Promise<void> {
    const db = this.db;
    if (!db) return;
    const [listeners, backends] = await Promise.all([
      // Newest first: of two gateway listeners on one port (a route deleted and made again before the old
      // listener went), the new route's serves; of two host listeners with one name, the new proxy host's.
      db.query(
        `SELECT l.id, host(l.address) AS address, l.port, l.protocol, l.hosts, l.health_check, l.router, l.certificate_id, c.cert_pem, c.key_encrypted
         FROM load_balancers l LEFT JOIN certificates c ON c.id = l.certificate_id ORDER BY l.created_at DESC, l.id`,
      ),
      // A removing backend is handed over as absent: the router drains it and deletes it once it is empty.
      db.query(`SELECT listener_id, host(address) AS address, port, state FROM load_balancer_backends WHERE state <> 'removing' ORDER BY listener_id, address, port`),
    ]);
    const backendsOf = (id: string) => backends.rows.filter((b) => b.listener_id === id);
    const { routes: routeSpecs, verdicts } = this.gatewayRoutes(
      listeners.rows.filter((l) => l.router === 'gateway'),
      backendsOf,
    );
    const {
      hosts: hostSpecs,
      handed,
      verdicts: hostVerdicts,
    } = this.proxyHosts(
      listeners.rows.filter((l) => l.router === 'hosts'),
      backendsOf,
    );
    const balancerSpecs: BalancerSpec[] = listeners.rows
      .filter((l) => l.router === 'balancer')
      .map((l) => ({
        listener: { id: l.id, address: l.address, port: l.port, protocol: l.protocol, hosts: l.hosts, check: l.health_check },
        backends: backendsOf(l.id).map((b) => ({ address: b.address, port: b.port, state: b.state })),
      }));
    // Side by side: the gateway's first start (the whole range) does not hold up the HTTP listener.
    const [results, hostsServed, balanced] = await Promise.all([this.gateway.apply(routeSpecs), this.applyHosts(hostSpecs), this.balancers.apply(balancerSpecs)]);
    this.sayOnce('gateway', this.gateway.status, 'the gateway HAProxy is not serving');
    for (const r of routeSpecs) verdicts[r.id] = results[r.port];
    for (const id of handed) hostVerdicts[id] = hostsServed;
    await this.recordOneBackend(verdicts, hostVerdicts);
    await this.recordBalancers(balanced);
  }

  /**
   * The host router's listeners (proxy hosts) as entries of its Host map:
   * each of a listener's names to its one active backend. A listener that
   * cannot be handed over gets its verdict here: 'pending' without a backend
   * yet, why not otherwise (on another address or port than this edge's
   * HTTP listener: the worker's configuration and this edge's differ; a
   * name a newer listener has).
   */
  private proxyHosts(
    listeners: Array<Record<string, any>>,
    backendsOf: (id: string) => Array<Record<string, any>>,
  ): { hosts: HostSpec[]; handed: string[]; verdicts: Record<string, string> } {
    const hosts: HostSpec[] = [];
    const handed: string[] = [];
    const verdicts: Record<string, string> = {};
    const names = new Set<string>();
    const { EDGE_HTTP_HOST: host, EDGE_HTTP_PORT: port } = this.config;
    for (const l of listeners) {
      if (!port || l.address !== host || l.port !== port) {
        verdicts[l.id] = port ? `this edge's HTTP listener is ${host}:${port}, not ${l.address}:${l.port}` : 'this edge has no HTTP listener (EDGE_HTTP_PORT=0)';
        continue;
      }
      const taken = (l.hosts as string[]).find((h) => names.has(h));
      if (taken) {
        verdicts[l.id] = `host ${taken} is another listener's`;
        continue;
      }
      const backend = backendsOf(l.id).find((b) => b.state === 'active');
      if (!backend) {
        verdicts[l.id] = PENDING;
        continue;
      }
      handed.push(l.id);
      for (const hostname of l.hosts as string[]) {
        names.add(hostname);
        hosts.push({ hostname, ip: backend.address, port: backend.port });
      }
    }
    return { hosts, handed, verdicts };
  }

  /**
   * The gateway's listeners as routes of its HAProxy: each forwards to its
   * one active backend, with its certificate's PEMs when it terminates TLS.
   * A listener that cannot be handed over gets its verdict here: 'pending'
   * without a backend yet, why not otherwise.
   */
  private gatewayRoutes(listeners: Array<Record<string, any>>, backendsOf: (id: string) => Array<Record<string, any>>): { routes: RouteSpec[]; verdicts: Record<string, string> } {
    const routes: RouteSpec[] = [];
    const verdicts: Record<string, string> = {};
    const ports = new Set<number>();
    for (const l of listeners) {
      if (ports.has(l.port)) {
        verdicts[l.id] = `the port is another gateway listener's`;
        continue;
      }
      ports.add(l.port);
      const backend = backendsOf(l.id).find((b) => b.state === 'active');
      if (!backend) {
        verdicts[l.id] = PENDING;
        continue;
      }
      let tls: RouteSpec['tls'] = null;
      if (l.certificate_id !== null) {
        try {
          tls = { certPem: l.cert_pem, keyPem: this.vault.open(l.key_encrypted) };
        } catch (err) {
          this.log('error', 'cannot decrypt the key of a certificate', { certificate_id: l.certificate_id, err: String(err) });
          verdicts[l.id] = `the key of certificate ${l.certificate_id} cannot be decrypted with this edge's secrets`;
          continue;
        }
      }
      routes.push({ id: l.id, port: l.port, targetIp: backend.address, targetPort: backend.port, tls });
    }
    return { routes, verdicts };
  }

  /**
   * Writes whether each load balancer serves and what HAProxy says of its
   * backends; a removing backend's row goes once HAProxy no longer holds it.
   */
  private async recordBalancers(results: Record<string, string>): Promise<void> {
    const db = this.db;
    if (!db) return;
    for (const [id, result] of Object.entries(results)) {
      const changed = await this.recordVerdict(db, id, result);
      if (changed && result !== 'ok') this.log('warn', 'load balancer not serving', { id, error: result });
      const seen = await this.balancers.observe(id);
      if (!seen || seen.status !== 'ok') continue;
      const held = seen.backends.map((b) => `${b.address}/${b.port}`);
      await db.query(
        `UPDATE load_balancer_backends b SET health = o.health, connections = o.connections, observed_at = now()
         FROM jsonb_to_recordset($2::jsonb) AS o(address inet, port int, health text, connections int)
         WHERE b.listener_id = $1 AND b.address = o.address AND b.port = o.port`,
        [id, JSON.stringify(seen.backends)],
      );
      await db.query(`DELETE FROM load_balancer_backends WHERE listener_id = $1 AND state = 'removing' AND NOT (host(address) || '/' || port = ANY($2::text[]))`, [id, held]);
    }
  }

  /**
   * Between reloads, the balancers' backend health as HAProxy's checks see
   * it: written where it changed, and said on BALANCER_STATUS_CHANNEL, so a
   * worker waiting for a member to join (or watching for one to leave)
   * hears of it within a poll rather than at the next resync. Only changes
   * cost a write; a poll already running is not doubled.
   */
  private async pollHealth(): Promise<void> {
    const db = this.db;
    if (!db || this.polling) return;
    this.polling = true;
    try {
      for (const id of this.balancers.listenerIds) {
        const seen = await this.balancers.observe(id);
        if (!seen || seen.status !== 'ok') continue;
        const health = seen.backends.map((b) => `${b.address}/${b.port}=${b.health}`).join(',');
        if (this.lastHealth.get(id) === health) continue;
        await db.query(
          `WITH changed AS (
             UPDATE load_balancer_backends b SET health = o.health, connections = o.connections, observed_at = now()
               FROM jsonb_to_recordset($2::jsonb) AS o(address inet, port int, health text, connections int)
              WHERE b.listener_id = $1 AND b.address = o.address AND b.port = o.port AND b.health IS DISTINCT FROM o.health RETURNING 1)
           SELECT pg_notify($3, $1) WHERE EXISTS (SELECT 1 FROM changed)`,
          [id, JSON.stringify(seen.backends), BALANCER_STATUS_CHANNEL],
        );
        this.lastHealth.set(id, health);
      }
      for (const id of this.lastHealth.keys()) if (!this.balancers.listenerIds.includes(id)) this.lastHealth.delete(id);
    } catch (err) {
      this.log('warn', 'cannot poll the balancers health', { err: String(err) });
    } finally {
      this.polling = false;
    }
  }

  /** Hands the Host map to the HTTP listener's HAProxy; 'ok' when it serves them, else why not. */
  private async applyHosts(hosts: HostSpec[]): Promise<string> {
    const failed = await this.router.setHosts(hosts).then(
      () => null,
      (err) => {
        this.log('warn', 'cannot update the proxy hosts in HAProxy', { err: String(err) });
        return `haproxy: cannot update the Host map: ${String(err)}`;
      },
    );
    const http = await this.router.listen(this.config.EDGE_HTTP_PORT ? { host: this.config.EDGE_HTTP_HOST, port: this.config.EDGE_HTTP_PORT } : null);
    this.sayOnce('http', http, 'the HTTP listener for proxy hosts is not bound');
    return http !== null && http !== 'ok' ? http : (failed ?? 'ok');
  }

  /** Logs why a listener is not bound when the reason is new. */
  private sayOnce(what: string, status: string | null, msg: string): void {
    if (status !== null && status !== 'ok' && status !== this.said.get(what)) this.log('error', msg, { error: status });
    this.said.set(what, status ?? 'ok');
  }

  /**
   * Writes the gateway's and the host router's verdicts on their listeners
   * (by listener id: the port or name may have a newer listener by now,
   * which this apply has not seen), and drops the backends the driver
   * removed: neither drains (a gateway route's connections go with its
   * change; the Host map sends the next request to the new backend at once).
   */
  private async recordOneBackend(gateway: Record<string, string>, hosts: Record<string, string>): Promise<void> {
    const db = this.db;
    if (!db) return;
    // One statement for them all: with many proxy hosts, a statement each would make every reload slow.
    const verdicts = { ...gateway, ...hosts };
    const rows = Object.entries(verdicts).map(([id, result]) => ({ id, ok: result === 'ok', error: result === 'ok' || result === PENDING ? null : result }));
    const changed = await db.query(
      `WITH v AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, ok boolean, error text)),
       changed AS (
         UPDATE load_balancers l SET bound_at = CASE WHEN v.ok THEN COALESCE(l.bound_at, now()) END, bind_error = v.error
         FROM v WHERE l.id = v.id AND (l.bind_error IS DISTINCT FROM v.error OR v.ok <> (l.bound_at IS NOT NULL)) RETURNING l.id)
       SELECT id, pg_notify($2, id) FROM changed`,
      [JSON.stringify(rows), BALANCER_STATUS_CHANNEL],
    );
    for (const { id } of changed.rows as Array<{ id: string }>) {
      const result = verdicts[id];
      if (result !== 'ok' && result !== PENDING) this.log('warn', id in gateway ? 'gateway listener not bound' : 'proxy host listener not served', { id, error: result });
    }
    await db.query(`DELETE FROM load_balancer_backends b USING load_balancers l WHERE l.id = b.listener_id AND l.router <> 'balancer' AND b.state = 'removing'`);
    await this.heartbeat();
  }

  /** Writes one listener's verdict ('ok', PENDING, or why not); whether it changed. */
  private async recordVerdict(db: Client, id: string, result: string): Promise<boolean> {
    const error = result === 'ok' || result === PENDING ? null : result;
    // Said on BALANCER_STATUS_CHANNEL too: a worker job waiting for this listener looks again at once.
    const changed = await db.query(
      `WITH changed AS (
         UPDATE load_balancers SET bound_at = CASE WHEN $2 THEN COALESCE(bound_at, now()) END, bind_error = $3
         WHERE id = $1 AND (bind_error IS DISTINCT FROM $3 OR $2 <> (bound_at IS NOT NULL)) RETURNING id)
       SELECT pg_notify($4, id) FROM changed`,
      [id, result === 'ok', error, BALANCER_STATUS_CHANNEL],
    );
    return !!changed.rowCount;
  }

  private async heartbeat(): Promise<void> {
    await this.db?.query(
      `INSERT INTO edge_nodes (name, pid, threads, http_bound, gateway_bound, ports_taken, started_at, heartbeat_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (name) DO UPDATE SET pid = $2, threads = $3, http_bound = $4, gateway_bound = $5, ports_taken = $6, heartbeat_at = now()`,
      [this.name, process.pid, this.threads, this.router.status === 'ok', this.gateway.status === 'ok', this.gateway.portsTaken, this.startedAt],
    );
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.log('info', 'edge stopping');
    const db = this.db;
    this.db = null;
    const done = () => process.exit(0);
    (db
      ? db
          .query('DELETE FROM edge_nodes WHERE name = $1', [this.name])
          .catch(() => undefined)
          .then(() => db.end())
      : Promise.resolve()
    )
      .catch(() => undefined)
      .finally(async () => {
        await Promise.all([this.router.close(), this.gateway.close(), this.balancers.close()]).catch(() => undefined);
        setTimeout(done, 200).unref();
      });
    setTimeout(done, 5_000).unref();
  }
}
