import { AppConfig, CertificateVault, EDGE_CHANNEL } from '@stratus/core';
import cluster, { Worker } from 'node:cluster';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DesiredState, Handoff, HostSpec, LOAD_REPORT_MS, LoadView, RouteSpec, TcpHandle, WorkerLoad, WorkerStatus } from './edge.messages';
import { HostRouter } from './host-router';

const log = (level: string, msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(JSON.stringify({ level, time: Date.now(), service: 'edge', msg, ...extra }) + '\n');

/**
 * The edge's primary process: reads the desired routes and proxy hosts from
 * PostgreSQL (LISTEN for prompt changes, plus a full resync on a timer),
 * hands the routes to the worker processes that accept their connections
 * and the proxy hosts to HAProxy (host-router.ts), and writes back what is
 * bound (gateway_routes.bound_at, edge_nodes). When PostgreSQL is
 * unreachable it keeps the last state, and the workers and HAProxy keep
 * serving.
 */
export class EdgePrimary {
  private readonly name = `${hostname()}:${process.pid}`;
  private readonly startedAt = new Date();
  private readonly vault: CertificateVault;
  private db: Client | null = null;
  private connecting = false;
  private state: DesiredState | null = null;
  private version = 0;
  private readonly statuses = new Map<number, WorkerStatus>();
  /** Open gateway connections by worker id, as last reported (connection-balancer.ts). */
  private readonly loads: Record<number, number> = {};
  /** Connections passed to each worker since its last report: its load too, though it has not said so yet. */
  private readonly forwarded: Record<number, number> = {};
  private loadsTimer: NodeJS.Timeout | null = null;
  private reloading: Promise<void> | null = null;
  private dirty = false;
  private stopping = false;
  private readonly workerCount: number;
  private readonly router: HostRouter;
  /** The last reason the HTTP listener was not bound, said once rather than at every resync. */
  private httpError: string | null = null;

  constructor(private readonly config: AppConfig) {
    this.vault = CertificateVault.fromDataDir(config.DATA_DIR);
    this.workerCount = config.EDGE_WORKERS || Math.max(1, Math.min(cpus().length, 8));
    this.router = new HostRouter({ dir: join(config.DATA_DIR, 'edge'), threads: this.workerCount, log });
  }

  async start(): Promise<void> {
    // Each worker accepts on the shared sockets itself (no round-robin through the primary).
    cluster.schedulingPolicy = cluster.SCHED_NONE;
    for (let i = 0; i < this.workerCount; i++) this.fork();
    cluster.on('exit', (worker, code, signal) => {
      this.statuses.delete(worker.id);
      delete this.loads[worker.id];
      delete this.forwarded[worker.id];
      this.sendLoads();
      if (this.stopping) return;
      log('warn', 'edge worker exited; starting another', { code, signal });
      this.fork();
    });
    await this.connect();
    setInterval(() => this.reload(), this.config.EDGE_RESYNC_INTERVAL_MS).unref();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => this.stop());
    log('info', 'edge started', { workers: this.workerCount, http: `${this.config.EDGE_HTTP_HOST}:${this.config.EDGE_HTTP_PORT}` });
  }

  private fork(): void {
    const worker = cluster.fork();
    this.loads[worker.id] = 0;
    worker.on('message', (msg: WorkerStatus | WorkerLoad | Handoff, handle?: unknown) => {
      if (msg?.type === 'status') this.onStatus(worker, msg);
      else if (msg?.type === 'load') this.onLoad(worker, msg);
      else if (msg?.type === 'handoff') this.handOff(worker, msg, handle as TcpHandle | undefined);
    });
    worker.once('online', () => {
      if (this.state) worker.send(this.state);
      this.sendLoads();
    });
  }

  private async connect(): Promise<void> {
    if (this.connecting || this.stopping) return;
    this.connecting = true;
    try {
      const db = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'stratus-edge' });
      db.on('error', (err) => this.lost(db, err));
      db.on('end', () => this.lost(db, new Error('connection ended')));
      await db.connect();
      await db.query(`LISTEN ${EDGE_CHANNEL}`);
      db.on('notification', () => this.reload());
      this.db = db;
      log('info', 'edge connected to PostgreSQL');
      await this.reload();
    } catch (err) {
      log('warn', 'PostgreSQL unreachable; serving the last known state', { err: String(err) });
      setTimeout(() => this.connect(), 1_000).unref();
    } finally {
      this.connecting = false;
    }
  }

  private lost(db: Client, err: Error): void {
    if (this.db !== db) return;
    this.db = null;
    db.end().catch(() => undefined);
    if (this.stopping) return;
    log('warn', 'lost PostgreSQL; serving the last known state', { err: String(err) });
    setTimeout(() => this.connect(), 1_000).unref();
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
          await this.loadAndPublish();
        } catch (err) {
          log('warn', 'edge resync failed', { err: String(err) });
        }
      } while (this.dirty && this.db);
    })().finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async loadAndPublish(): Promise<void> {
    const db = this.db;
    if (!db) return;
    const [routes, hosts] = await Promise.all([
      db.query(
        `SELECT r.port, r.target_ip, r.target_port, r.certificate_id, c.cert_pem, c.key_encrypted
         FROM gateway_routes r LEFT JOIN certificates c ON c.id = r.certificate_id ORDER BY r.port`,
      ),
      db.query(
        `SELECT p.hostname, host(i.address) AS ip, p.forward_port FROM proxy_hosts p JOIN instances i ON i.id = p.instance_id`,
      ),
    ]);
    const routeSpecs: RouteSpec[] = [];
    for (const r of routes.rows) {
      let tls: RouteSpec['tls'] = null;
      if (r.certificate_id !== null) {
        if (!r.cert_pem) continue; // certificate deleted: the route cannot serve
        try {
          tls = { certPem: r.cert_pem, keyPem: this.vault.open(r.key_encrypted), certificateId: r.certificate_id };
        } catch (err) {
          log('error', 'cannot decrypt the key of a certificate', { certificate_id: r.certificate_id, err: String(err) });
          continue;
        }
      }
      routeSpecs.push({ port: r.port, targetIp: r.target_ip, targetPort: r.target_port, tls });
    }
    const hostSpecs: HostSpec[] = hosts.rows.map((h) => ({ hostname: h.hostname, ip: h.ip, port: h.forward_port }));
    this.state = { type: 'state', version: ++this.version, gatewayHost: this.config.GATEWAY_HOST, routes: routeSpecs };
    for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send(this.state);
    await this.router.setHosts(hostSpecs).catch((err) => log('warn', 'cannot update the proxy hosts in HAProxy', { err: String(err) }));
    const http = await this.router.listen(this.config.EDGE_HTTP_PORT ? { host: this.config.EDGE_HTTP_HOST, port: this.config.EDGE_HTTP_PORT } : null);
    if (http !== null && http !== 'ok' && http !== this.httpError) log('error', 'the HTTP listener for proxy hosts is not bound', { error: http });
    this.httpError = http === 'ok' ? null : http;
    await this.heartbeat();
  }

  private onLoad(worker: Worker, msg: WorkerLoad): void {
    this.loads[worker.id] = msg.connections;
    this.forwarded[worker.id] = 0;
    this.loadsChanged();
  }

  /** Every worker learns the others' loads, at most every LOAD_REPORT_MS. */
  private loadsChanged(): void {
    this.loadsTimer ??= setTimeout(() => {
      this.loadsTimer = null;
      this.sendLoads();
    }, LOAD_REPORT_MS);
  }

  private sendLoads(): void {
    const connections = Object.fromEntries(Object.entries(this.loads).map(([id, n]) => [id, n + (this.forwarded[Number(id)] ?? 0)]));
    const view: LoadView = { type: 'loads', connections };
    for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send(view);
  }

  /**
   * A connection one worker passed on, as a bare TCP handle that nobody
   * reads until the receiving worker wraps it: to the worker it chose, or, if
   * that one is gone, to any live one. Closed here once sent.
   */
  private handOff(from: Worker, msg: Handoff, tcp: TcpHandle | undefined): void {
    if (!tcp) return;
    const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w?.isConnected());
    const to = live.find((w) => w.id === msg.to) ?? live.find((w) => w !== from) ?? live[0];
    if (!to) return tcp.close();
    to.send(msg, tcp as never, {}, () => tcp.close());
    this.forwarded[to.id] = (this.forwarded[to.id] ?? 0) + 1;
    this.loadsChanged();
  }

  /** Once every worker has applied the latest state: record what is bound. */
  private onStatus(worker: Worker, msg: WorkerStatus): void {
    this.statuses.set(worker.id, msg);
    const live = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
    const latest = this.state?.version;
    if (!latest || live.some((w) => this.statuses.get(w!.id)?.version !== latest)) return;
    const bound: number[] = [];
    const failed = new Map<number, string>();
    for (const route of this.state!.routes) {
      const results = live.map((w) => this.statuses.get(w!.id)!.routes[route.port]);
      const error = results.find((r) => r !== 'ok');
      if (error === undefined) bound.push(route.port);
      else failed.set(route.port, error ?? 'not bound');
    }
    this.record(bound, failed).catch((err) => log('warn', 'cannot record bound listeners', { err: String(err) }));
  }

  private async record(bound: number[], failed: Map<number, string>): Promise<void> {
    const db = this.db;
    if (!db) return;
    await db.query(
      `UPDATE gateway_routes SET bound_at = COALESCE(bound_at, now()), bind_error = NULL
       WHERE port = ANY($1::int[]) AND (bound_at IS NULL OR bind_error IS NOT NULL)`,
      [bound],
    );
    for (const [port, error] of failed) {
      await db.query(`UPDATE gateway_routes SET bound_at = NULL, bind_error = $2 WHERE port = $1`, [port, error]);
      log('warn', 'gateway listener not bound', { port, error });
    }
    await this.heartbeat();
  }

  private async heartbeat(): Promise<void> {
    await this.db?.query(
      `INSERT INTO edge_nodes (name, pid, workers, http_bound, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (name) DO UPDATE SET pid = $2, workers = $3, http_bound = $4, heartbeat_at = now()`,
      [this.name, process.pid, this.workerCount, this.router.status === 'ok', this.startedAt],
    );
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    log('info', 'edge stopping');
    const db = this.db;
    this.db = null;
    const done = () => process.exit(0);
    (db ? db.query('DELETE FROM edge_nodes WHERE name = $1', [this.name]).catch(() => undefined).then(() => db.end()) : Promise.resolve())
      .catch(() => undefined)
      .finally(async () => {
        for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGKILL');
        await this.router.close().catch(() => undefined);
        setTimeout(done, 200).unref();
      });
    setTimeout(done, 3_000).unref();
  }
}
