import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { isForeignKeyViolation, isUniqueViolation } from '../database/constraint-violation';
import { notifyEdge } from '../edge/edge-channel';
import { EdgeNode } from '../edge/edge-node.entity';
import { Conflict, Invalid, NotFound, Unavailable } from '../errors/domain-errors';
import { projectScope } from '../projects/project-scope';
import { Principal } from '../projects/projects.service';
import { isPortConflict } from './bind-errors';
import { Certificate } from './certificate.entity';
import { GatewayRoute } from './gateway-route.entity';
import { canBind } from './port-probe';
import { RouteTargetChecks } from './route-target.checks';

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
 * the edge binds them. Create is synchronous: the row is committed (which
 * notifies the edge), then the create waits, bounded, for the edge to record
 * the listener as bound or failed. A route that cannot be served is removed.
 */
@Injectable()
export class GatewayRouteLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly targets: RouteTargetChecks,
  ) {}

  async create(spec: NewGatewayRoute, principal: Principal): Promise<GatewayRoute> {
    if (spec.protocol !== 'tcp') throw new Invalid('protocol', 'only tcp is supported');
    const { from, to } = this.config.gatewayPorts;
    if (spec.port < from || spec.port > to) throw new Invalid('port', `must be in the gateway range ${from}-${to}`);
    const target = await this.targets.address(spec.targetIp, spec.targetPort, principal.projectId);
    if (spec.certificate_id !== undefined && !(await this.dataSource.getRepository(Certificate).existsBy({ id: spec.certificate_id }))) {
      throw new Invalid('certificate_id', `certificate ${spec.certificate_id} does not exist`);
    }

    let route: GatewayRoute;
    try {
      route = await this.dataSource.transaction(async (m) => {
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
        await notifyEdge(m, 'routes');
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict(`port ${spec.port} is already used by another route`);
      // The target's resource released its address since the check (deleted).
      if (isForeignKeyViolation(err, ROUTE_LEASE_FK)) throw new Invalid('targetIp', `${target.address} is not the address of an instance or database of your project`);
      // Removed since the check above.
      if (isForeignKeyViolation(err)) throw new Invalid('certificate_id', `certificate ${spec.certificate_id} does not exist`);
      throw err;
    }
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
        throw new Unavailable(`the edge cannot serve a route on port ${route.port} now (${row.bindError})`);
      }
      await sleep(BIND_POLL_MS);
    }
    await this.remove(route.id);
    throw new Unavailable(`the edge did not bind port ${route.port} within ${this.config.GATEWAY_BIND_TIMEOUT_MS} ms; is it running?`);
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
    const deleted = await this.dataSource.transaction(async (m) => {
      const result = await m.getRepository(GatewayRoute).delete({ port: number, ...projectScope(principal) });
      if (result.affected) await notifyEdge(m, 'routes');
      return result.affected ?? 0;
    });
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
   * when it started), and not bound by anything right now (a port HAProxy
   * holds for later routes is paused, not listening, so the probe sees only
   * another process). Starts at a random place so concurrent callers rarely
   * get the same one (create still settles a race with a Conflict).
   */
  async availablePort(): Promise<number> {
    const { from, to } = this.config.gatewayPorts;
    const used = new Set(await this.usedPorts());
    const taken = new Set((await this.liveEdge())?.portsTaken ?? []);
    const size = to - from + 1;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const port = from + ((start + i) % size);
      if (!used.has(port) && !taken.has(port) && (await canBind(this.config.GATEWAY_HOST, port))) return port;
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
    await this.dataSource.transaction(async (m) => {
      await m.getRepository(GatewayRoute).delete({ id });
      await notifyEdge(m, 'routes');
    });
  }
}
