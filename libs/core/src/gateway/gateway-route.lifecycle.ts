import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { isForeignKeyViolation, isUniqueViolation } from '../database/constraint-violation';
import { EdgeNode } from '../edge/edge-node.entity';
import { Conflict, Invalid, NotFound, Unavailable } from '../errors/domain-errors';
import { projectScope } from '../projects/project-scope';
import { Principal } from '../projects/projects.service';
import { JobOutbox } from '../outbox/job-outbox';
import { OutboxEntry } from '../outbox/outbox.entity';
import { isPortConflict, PORT_TAKEN } from './bind-errors';
import { Certificate } from './certificate.entity';
import { GatewayRoute } from './gateway-route.entity';
import { RouteTargetChecks } from './route-target.checks';
import { ProjectQuotas } from '../quotas/project-quotas';

/** A route as SPEC.md's gateway create asks for it. */
export interface NewGatewayRoute {
  targetIp: string;
  targetPort: number;
  protocol: string;
  port: number;
  certificate_id?: number;
}

const BIND_POLL_MS = 20;
/** The foreign key from a route to the lease of its target (migration RouteTargetLease). */
const ROUTE_LEASE_FK = 'FK_8b8eb9adce598d9b5698b54341b';

/**
 * The life of a gateway TCP route. The database holds the desired routes;
 * the worker makes each a load-balancer listener with one backend on the
 * provider (the edge's gateway HAProxy, locally). Create is synchronous:
 * the row and its job are committed together, then the create waits,
 * bounded, for the worker to record the listener as bound or failed. A
 * route that cannot be served is removed. Every removal of a route writes
 * the job that deletes its listener (a trigger, see migration
 * RouteListeners), which the api enqueues at once when it removes it.
 */
@Injectable()
export class GatewayRouteLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly targets: RouteTargetChecks,
    private readonly outbox: JobOutbox,
    private readonly quotas: ProjectQuotas,
  ) {}

  async create(spec: NewGatewayRoute, principal: Principal): Promise<GatewayRoute> {
    if (spec.protocol !== 'tcp') throw new Invalid('protocol', 'only tcp is supported');
    const { from, to } = this.config.gatewayPorts;
    if (spec.port < from || spec.port > to) throw new Invalid('port', `must be in the gateway range ${from}-${to}`);
    const target = await this.targets.address(spec.targetIp, spec.targetPort, principal.projectId);
    if (spec.certificate_id !== undefined && !this.config.balancersTerminateTls) {
      throw new Invalid('certificate_id', `the ${this.config.PROVIDER} provider's load balancers do not terminate TLS: create the route without a certificate`);
    }
    if (spec.certificate_id !== undefined && !(await this.dataSource.getRepository(Certificate).existsBy({ id: spec.certificate_id }))) {
      throw new Invalid('certificate_id', `certificate ${spec.certificate_id} does not exist`);
    }

    // A port the live edge left out at its start would only be refused by it: said now, without a round trip.
    if ((await this.liveEdge())?.portsTaken.includes(spec.port)) throw new Conflict(`port ${spec.port} cannot be bound on the gateway (${PORT_TAKEN})`);

    let route: GatewayRoute;
    let job: OutboxEntry;
    try {
      [route, job] = await this.dataSource.transaction(async (m) => {
        const row = await m.getRepository(GatewayRoute).save({
          port: spec.port,
          projectId: principal.projectId,
          userId: principal.userId,
          protocol: 'tcp' as const,
          targetIp: target.address,
          targetLease: target.lease,
          targetPort: spec.targetPort,
          certificateId: spec.certificate_id ?? null,
          boundAt: null,
          bindError: null,
        });
        await this.quotas.enforce(m, principal.projectId, 'gateway_routes', 1);
        return [row, await this.outbox.writeJob(m, 'route.apply', row.id, { routeId: row.id, generation: 1 })] as const;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict(`port ${spec.port} is already used by another route`);
      // The target's resource released its address since the check (deleted).
      if (isForeignKeyViolation(err, ROUTE_LEASE_FK)) throw new Invalid('targetIp', `${target.address} is not the address of an instance or database of your project`);
      // Removed since the check above.
      if (isForeignKeyViolation(err)) throw new Invalid('certificate_id', `certificate ${spec.certificate_id} does not exist`);
      throw err;
    }
    this.outbox.dispatch([job]);
    return this.awaitBound(route);
  }

  /** Waits for the edge's verdict on a new route; a route the edge cannot bind is removed again. */
  private async awaitBound(route: GatewayRoute): Promise<GatewayRoute> {
    const repo = this.dataSource.getRepository(GatewayRoute);
    const deadline = Date.now() + this.config.GATEWAY_BIND_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const row = await repo.findOneBy({ id: route.id });
      if (!row) throw new Conflict(`route on port ${route.port} was deleted while it was being created`);
      if (row.boundAt) return row;
      if (row.bindError) {
        await this.remove(route.id);
        if (isPortConflict(row.bindError)) throw new Conflict(`port ${route.port} cannot be bound on the gateway (${row.bindError})`);
        throw new Unavailable(`the gateway cannot serve a route on port ${route.port} now (${row.bindError})`);
      }
      await sleep(BIND_POLL_MS);
    }
    await this.remove(route.id);
    throw new Unavailable(
      `the gateway did not bind port ${route.port} within ${this.config.GATEWAY_BIND_TIMEOUT_MS} ms; are the worker and the edge (or the cloud's load balancers) running?`,
    );
  }

  /**
   * Deletes the route on `port` (SPEC's key for it, as the path gives it).
   * Without a principal (a public endpoint called without a token) any
   * project's route; with one, only its own: another project's is NotFound.
   */
  async delete(port: string, principal: Principal | undefined): Promise<number> {
    if (!/^\d{1,5}$/.test(port) || +port < 1 || +port > 65535) {
      throw new Invalid('port', 'must be a port number from 1 to 65535');
    }
    const number = Number(port);
    const deleted = await this.removeWhere({ port: number, ...projectScope(principal) });
    if (!deleted) throw new NotFound(`no route on port ${number}`);
    return number;
  }

  /** The caller's routes by port (or, without a principal, every project's). */
  routes(principal?: Principal): Promise<GatewayRoute[]> {
    return this.dataSource.getRepository(GatewayRoute).find({ where: projectScope(principal), order: { port: 'ASC' } });
  }

  /** The ports of the caller's routes (available-port still steers everyone clear of every route's). */
  async usedPorts(principal?: Principal): Promise<number[]> {
    const rows = await this.dataSource.getRepository(GatewayRoute).find({
      select: { port: true },
      where: projectScope(principal),
      order: { port: 'ASC' },
    });
    return rows.map((r) => r.port);
  }

  /**
   * A port of the range that no route uses and that the gateway can serve:
   * not one the live edge's HAProxy left out (something else had it bound
   * when it started). The api probes nothing itself: the edge, on the
   * gateway host, knows what it holds; a port something took since is
   * refused by the create's verdict (409). Starts at a random place so
   * concurrent callers rarely get the same one (create still settles a race
   * with a Conflict).
   */
  async availablePort(): Promise<number> {
    const { from, to } = this.config.gatewayPorts;
    const used = new Set(await this.usedPorts());
    const taken = new Set((await this.liveEdge())?.portsTaken ?? []);
    const size = to - from + 1;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const port = from + ((start + i) % size);
      if (!used.has(port) && !taken.has(port)) return port;
    }
    throw new Conflict(`no free port left in the gateway range ${from}-${to}`);
  }

  /** The edge that reported itself most recently, unless it has been silent too long to count. */
  async liveEdge(): Promise<EdgeNode | null> {
    const staleAfter = Math.max(3 * this.config.EDGE_RESYNC_INTERVAL_MS, 15_000);
    const [node] = await this.dataSource.getRepository(EdgeNode).find({ order: { heartbeatAt: 'DESC' }, take: 1 });
    return node && Date.now() - node.heartbeatAt.getTime() < staleAfter ? node : null;
  }

  private async remove(id: string): Promise<void> {
    await this.removeWhere({ id });
  }

  /**
   * Deletes the routes `where` matches; how many. Each removal wrote its
   * listener's delete job (the trigger): enqueued here after commit rather
   * than at the relay's next pass, so the port closes at once.
   */
  private async removeWhere(where: Partial<Pick<GatewayRoute, 'id' | 'port' | 'projectId'>>): Promise<number> {
    const [count, jobs] = await this.dataSource.transaction(async (m) => {
      const ids = (await m.getRepository(GatewayRoute).find({ select: { id: true }, where })).map((r) => r.id);
      if (!ids.length) return [0, [] as OutboxEntry[]] as const;
      const result = await m.getRepository(GatewayRoute).delete({ id: In(ids) });
      return [result.affected ?? 0, await this.deleteJobs(m, ids)] as const;
    });
    if (jobs.length) this.outbox.dispatch(jobs);
    return count;
  }

  /** The outbox rows the trigger wrote for these routes' removal. */
  private deleteJobs(m: EntityManager, routeIds: string[]): Promise<OutboxEntry[]> {
    const jobIds = routeIds.map((id) => this.outbox.jobEntry('route.delete', id, { routeId: id, generation: 1 }).jobId);
    return m.getRepository(OutboxEntry).findBy({ jobId: In(jobIds), dispatchedAt: IsNull() });
  }
}
