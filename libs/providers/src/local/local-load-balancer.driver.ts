import { BALANCER_STATUS_CHANNEL, EDGE_CHANNEL, EdgeRouter, isForeignKeyViolation } from '@stratus/core';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DriverError } from '../driver-error';
import { ANY_HOST, BackendSpec, BackendState, invalidBackend, invalidListener, ListenerSpec, LoadBalancerDriver, ObservedListener, portTaken } from '../load-balancer.driver';

/**
 * The edge's gateway: the host whose `range` of ports its gateway HAProxy
 * holds from its start (GATEWAY_HOST, GATEWAY_PORT_RANGE).
 */
export interface LocalGateway {
  host: string;
  range: { from: number; to: number };
}

/** The edge's HTTP listener (EDGE_HTTP_HOST, EDGE_HTTP_PORT), which routes by its Host map. */
export interface LocalHttpListener {
  host: string;
  port: number;
}

/** The edge's shared listeners, as the worker's configuration names them. */
export interface LocalEdge {
  gateway?: LocalGateway | null;
  http?: LocalHttpListener | null;
}

/**
 * The local provider's load balancers are the edge's HAProxy. The driver
 * writes what is wanted to PostgreSQL (load_balancers and their backends)
 * and tells the edge; the edge serves it without the worker, and writes
 * back whether the listener serves and what HAProxy says of each backend.
 * So nothing here waits for HAProxy, and a stopped worker stops nothing.
 *
 * Which of the edge's HAProxy processes serves a listener (`router`) is
 * decided here, as the listener is written, in one place (`routerOf`):
 * - a TCP listener on the gateway host with a port of the gateway range is
 *   the gateway's: the HAProxy that holds the whole range serves it
 *   (runtime API only, TLS by certificate swap);
 * - an HTTP listener on the edge's HTTP listener address and port is the
 *   host router's: its one HAProxy serves every such listener's names from
 *   a Host map changed at run time (proxy hosts);
 * - anything else gets an HAProxy of its own address and port.
 * A second HAProxy could not bind a port the first holds, so these are
 * never served from elsewhere; and since the decision is written with the
 * listener, an edge configured otherwise says so (an error) rather than
 * serving the port from another process. The gateway and host router
 * serve a listener's one active backend, and nothing before it has one.
 */
export class LocalLoadBalancerDriver implements LoadBalancerDriver {
  private readonly watchers = new Set<(id: string) => void>();
  private listening: Client | null = null;

  constructor(
    private readonly db: () => DataSource,
    private readonly edge: LocalEdge = {},
    /** Where `watch` listens for the edge's verdicts; without it `watch` hears nothing (callers poll). */
    private readonly databaseUrl: string | null = null,
  ) {}

  /** The edge NOTIFYs each new verdict (BALANCER_STATUS_CHANNEL); one connection serves every watcher. */
  watch(onChange: (id: string) => void): () => void {
    this.watchers.add(onChange);
    if (this.watchers.size === 1) this.listen();
    return () => {
      this.watchers.delete(onChange);
      if (this.watchers.size === 0) this.unlisten();
    };
  }

  private listen(): void {
    if (!this.databaseUrl || this.listening || this.watchers.size === 0) return;
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'stratus-balancer-watch' });
    this.listening = client;
    const lost = () => {
      if (this.listening !== client) return;
      this.listening = null;
      client.end().catch(() => undefined);
      // Missed notices only slow the callers down (they poll): try again in a second.
      setTimeout(() => this.listen(), 1_000).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      for (const w of this.watchers) w(String(n.payload));
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${BALANCER_STATUS_CHANNEL}`))
      .catch(lost);
  }

  private unlisten(): void {
    const client = this.listening;
    this.listening = null;
    client?.end().catch(() => undefined);
  }

  async ensureListener(spec: ListenerSpec): Promise<void> {
    const invalid = invalidListener(spec);
    if (invalid) throw new DriverError('invalid', invalid);
    const hosts = spec.protocol === 'http' ? [...new Set(spec.hosts ?? [])].sort() : [];
    const router = this.routerOf(spec);
    // The edge's HTTP listener is every proxy host's: no one of them may take the names of the others.
    if (router === 'hosts' && hosts.includes(ANY_HOST)) throw new DriverError('invalid', `${ANY_HOST} names a balancer's own address, not the edge's HTTP listener`);
    // Only the gateway's HAProxy is given certificates (over its runtime API).
    if (spec.tls && router !== 'gateway') throw new DriverError('invalid', `TLS is terminated only on the gateway's ports (${this.rangeText()})`);
    // The gateway's HAProxy holds its whole range and serves the newer of two listeners on a port (a route deleted and
    // made again before the old listener went); any other port would be a second HAProxy's bind error.
    if (router !== 'gateway') {
      for (const other of await this.onPort(spec)) {
        const taken = portTaken(spec, other);
        if (taken) throw taken;
      }
    }
    const certificate = spec.tls?.certificateId ?? null;
    // What the edge said of an earlier shape (bound, or why not) no longer holds for a new one.
    // The gateway and host router serve a listener only with an active backend (a route's target,
    // a proxy host's instance): until then a notice would only make it read everything again for
    // nothing (a create waits on that read), and the addBackend that follows tells it.
    await this.changing(
      `WITH up AS (
         INSERT INTO load_balancers (id, address, port, protocol, hosts, health_check, router, certificate_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET address = $2, port = $3, protocol = $4, hosts = $5, health_check = $6, router = $7, certificate_id = $8,
           bound_at = NULL, bind_error = NULL, updated_at = now()
         WHERE (load_balancers.address, load_balancers.port, load_balancers.protocol, load_balancers.hosts, load_balancers.health_check,
                load_balancers.router, load_balancers.certificate_id)
           IS DISTINCT FROM ($2::inet, $3::int, $4::text, $5::text[], $6::jsonb, $7::text, $8::int))
       SELECT pg_notify($9, 'balancers') WHERE $7::text = 'balancer' OR EXISTS (SELECT 1 FROM load_balancer_backends WHERE listener_id = $1 AND state = 'active')`,
      [spec.id, spec.address, spec.port, spec.protocol, hosts, JSON.stringify(spec.check), router, certificate, EDGE_CHANNEL],
    ).catch((err) => {
      // A certificate that does not exist (or was removed): nothing will make this listener.
      throw err instanceof DriverError && err.code === 'retryable' && isForeignKeyViolation(err.cause) ? new DriverError('invalid', `no certificate ${certificate}`) : err;
    });
  }

  async listenerIds(prefix: string): Promise<string[]> {
    try {
      const rows: Array<{ id: string }> = await this.db().query(`SELECT id FROM load_balancers WHERE starts_with(id, $1) ORDER BY id`, [prefix]);
      return rows.map((r) => r.id);
    } catch (err) {
      throw new DriverError('retryable', `load balancer state: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The other listeners on the spec's address and port. */
  private async onPort(spec: ListenerSpec): Promise<ListenerSpec[]> {
    try {
      return await this.db().query(`SELECT id, host(address) AS address, port, protocol, hosts FROM load_balancers WHERE address = $1 AND port = $2 AND id <> $3 ORDER BY id`, [
        spec.address,
        spec.port,
        spec.id,
      ]);
    } catch (err) {
      throw new DriverError('retryable', `load balancer state: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** Which of the edge's HAProxy processes serves the listener (see the class comment). */
  private routerOf(spec: ListenerSpec): EdgeRouter {
    const { gateway, http } = this.edge;
    if (gateway && spec.protocol === 'tcp' && spec.address === gateway.host && spec.port >= gateway.range.from && spec.port <= gateway.range.to) return 'gateway';
    if (http && spec.protocol === 'http' && spec.address === http.host && spec.port === http.port) return 'hosts';
    return 'balancer';
  }

  private rangeText(): string {
    const { gateway } = this.edge;
    return gateway ? `${gateway.host}:${gateway.range.from}-${gateway.range.to}` : 'none configured';
  }

  async deleteListener(id: string): Promise<void> {
    await this.changing(`WITH gone AS (DELETE FROM load_balancers WHERE id = $1) SELECT pg_notify($2, 'balancers')`, [id, EDGE_CHANNEL]);
  }

  async addBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    this.check(backend);
    const [added] = await this.changing(
      `WITH added AS (
         INSERT INTO load_balancer_backends (listener_id, address, port, state)
         SELECT id, $2, $3, 'active' FROM load_balancers WHERE id = $1
         ON CONFLICT (listener_id, address, port) DO UPDATE SET state = 'active'
         RETURNING 1)
       SELECT pg_notify($4, 'balancers') FROM added`,
      [listenerId, backend.address, backend.port, EDGE_CHANNEL],
    );
    if (!added) throw new DriverError('not_found', `no load balancer ${listenerId}`);
  }

  async drainBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    this.check(backend);
    if (!(await this.setState(listenerId, backend, 'draining'))) throw new DriverError('not_found', `no backend ${backend.address}:${backend.port} on load balancer ${listenerId}`);
  }

  async removeBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    this.check(backend);
    await this.setState(listenerId, backend, 'removing');
  }

  async observe(id: string): Promise<ObservedListener | null> {
    // One statement: a job waiting for a listener asks this often.
    const [listener] = await this.db().query(
      `SELECT host(l.address) AS address, l.port, l.protocol, l.hosts, l.health_check, l.certificate_id, l.bound_at, l.bind_error,
              COALESCE((SELECT jsonb_agg(jsonb_build_object('address', host(b.address), 'port', b.port, 'state', b.state, 'health', b.health, 'connections', b.connections)
                                  ORDER BY b.address, b.port)
                        FROM load_balancer_backends b WHERE b.listener_id = l.id), '[]') AS backends
       FROM load_balancers l WHERE l.id = $1`,
      [id],
    );
    if (!listener) return null;
    const backends: Array<Record<string, unknown>> = listener.backends;
    return {
      status: listener.bind_error ?? (listener.bound_at ? 'ok' : 'pending'),
      backends: backends.map((b) => ({
        address: b.address as string,
        port: b.port as number,
        state: b.state as BackendState,
        health: b.health as 'up' | 'down' | 'unknown',
        connections: b.connections as number,
      })),
      spec: {
        id,
        address: listener.address,
        port: listener.port,
        protocol: listener.protocol,
        ...(listener.protocol === 'http' ? { hosts: listener.hosts } : {}),
        ...(listener.certificate_id !== null ? { tls: { certificateId: listener.certificate_id } } : {}),
        check: listener.health_check,
      },
    };
  }

  private check(backend: BackendSpec): void {
    const invalid = invalidBackend(backend);
    if (invalid) throw new DriverError('invalid', invalid);
  }

  /** Sets the backend's state; false when there is no such backend. */
  private async setState(listenerId: string, backend: BackendSpec, state: BackendState): Promise<boolean> {
    const [{ count }] = await this.changing(
      `WITH changed AS (UPDATE load_balancer_backends SET state = $4 WHERE listener_id = $1 AND address = $2 AND port = $3 RETURNING 1)
       SELECT (SELECT count(*) FROM changed)::int AS count, pg_notify($5, 'balancers')`,
      [listenerId, backend.address, backend.port, state, EDGE_CHANNEL],
    );
    return count > 0;
  }

  /**
   * A change and the edge's notice of it, in one statement (so one
   * transaction, and one round trip): the edge hears of it at commit, never
   * of a rollback.
   */
  private async changing(sql: string, params: unknown[]): Promise<Array<Record<string, any>>> {
    try {
      return await this.db().query(sql, params);
    } catch (err) {
      // PostgreSQL unreachable, a serialisation failure...: the job tries again later.
      throw new DriverError('retryable', `load balancer state: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
