import { BadRequestException, ConflictException, Injectable, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { AppConfig, canBind, Certificate, EdgeNode, GatewayRoute, isForeignKeyViolation, isPortConflict, isUniqueViolation, notifyEdge, Principal, projectScope, RouteTargetChecks } from '@stratus/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { CreateGatewayRouteDto } from './gateway-route.dto';

const BIND_POLL_MS = 20;
/** The foreign key from a route to the lease of its target (migration RouteTargetLease). */
const ROUTE_LEASE_FK = 'FK_8b8eb9adce598d9b5698b54341b';

/**
 * Gateway TCP routes. The database holds the desired routes; the edge binds
 * them. Create is synchronous: the row is committed (which notifies the
 * edge), then the API waits, bounded, for the edge to record the listener
 * as bound or failed.
 */
@Injectable()
export class GatewayService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly targets: RouteTargetChecks,
  ) {}

  get host(): string {
    return this.config.GATEWAY_HOST;
  }

  async create(dto: CreateGatewayRouteDto, principal: Principal): Promise<GatewayRoute> {
    if (dto.protocol !== 'tcp') throw new BadRequestException(`protocol: only tcp is supported`);
    const { from, to } = this.config.gatewayPorts;
    if (dto.port < from || dto.port > to) throw new BadRequestException(`port: must be in the gateway range ${from}-${to}`);
    const target = await this.targets.address(dto.targetIp, dto.targetPort, principal.projectId);
    if (dto.certificate_id !== undefined && !(await this.dataSource.getRepository(Certificate).existsBy({ id: dto.certificate_id }))) {
      throw new BadRequestException(`certificate_id: certificate ${dto.certificate_id} does not exist`);
    }

    let route: GatewayRoute;
    try {
      route = await this.dataSource.transaction(async (m) => {
        const row = await m.getRepository(GatewayRoute).save({
          port: dto.port,
          projectId: principal.projectId,
          userId: principal.userId,
          protocol: 'tcp' as const,
          targetIp: target.address,
          targetLease: target.lease,
          targetPort: dto.targetPort,
          certificateId: dto.certificate_id ?? null,
          boundAt: null,
          bindError: null,
        });
        await notifyEdge(m, 'routes');
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictException(`port ${dto.port} is already used by another route`);
      // The target's resource released its address since the check (deleted).
      if (isForeignKeyViolation(err, ROUTE_LEASE_FK)) throw new BadRequestException(`targetIp: ${target.address} is not the address of an instance or database of your project`);
      // Removed since the check above.
      if (isForeignKeyViolation(err)) throw new BadRequestException(`certificate_id: certificate ${dto.certificate_id} does not exist`);
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
      if (!row) throw new ConflictException(`route on port ${route.port} was deleted while it was being created`);
      if (row.boundAt) return row;
      if (row.bindError) {
        await this.remove(route.id);
        if (isPortConflict(row.bindError)) throw new ConflictException(`port ${route.port} cannot be bound on the gateway (${row.bindError})`);
        throw new ServiceUnavailableException(`the edge cannot serve a route on port ${route.port} now (${row.bindError})`);
      }
      await sleep(BIND_POLL_MS);
    }
    await this.remove(route.id);
    throw new ServiceUnavailableException(`the edge did not bind port ${route.port} within ${this.config.GATEWAY_BIND_TIMEOUT_MS} ms; is it running?`);
  }

  /** Without a principal (a public endpoint called without a token) any project's route; with one, only its own. */
  async delete(portParam: string, principal: Principal | undefined): Promise<number> {
    if (!/^\d{1,5}$/.test(portParam) || +portParam < 1 || +portParam > 65535) {
      throw new BadRequestException('port: must be a port number from 1 to 65535');
    }
    const port = Number(portParam);
    const deleted = await this.dataSource.transaction(async (m) => {
      // Another project's route answers as a missing one: 404.
      const result = await m.getRepository(GatewayRoute).delete({ port, ...projectScope(principal) });
      if (result.affected) await notifyEdge(m, 'routes');
      return result.affected ?? 0;
    });
    if (!deleted) throw new NotFoundException(`no route on port ${port}`);
    return port;
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
   * get the same one (create still settles a race with 409).
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
    throw new ConflictException(`no free port left in the gateway range ${from}-${to}`);
  }

  /** The edge that reported itself most recently, unless it has been silent too long to count. */
  private async liveEdge(): Promise<EdgeNode | null> {
    const staleAfter = Math.max(3 * this.config.EDGE_RESYNC_INTERVAL_MS, 15_000);
    const [node] = await this.dataSource.getRepository(EdgeNode).find({ order: { heartbeatAt: 'DESC' }, take: 1 });
    return node && Date.now() - node.heartbeatAt.getTime() < staleAfter ? node : null;
  }

  /** The edge as a whole, and the listeners of the caller's own routes. */
  async health(principal: Principal) {
    const node = await this.liveEdge();
    const routes = await this.dataSource.getRepository(GatewayRoute).find({ where: projectScope(principal), order: { port: 'ASC' } });
    // No route serves while the gateway HAProxy is down, whatever each one last recorded.
    const bound = node?.gatewayBound ? routes.filter((r) => r.boundAt && !r.bindError) : [];
    const missing = routes.filter((r) => !bound.includes(r)).map((r) => r.port);
    const status = !node ? 'down' : missing.length || !node.httpBound || !node.gatewayBound ? 'degraded' : 'ok';
    return {
      status,
      edge: node
        ? { name: node.name, threads: node.threads, started_at: node.startedAt.toISOString(), last_seen: node.heartbeatAt.toISOString() }
        : null,
      listeners: {
        expected: routes.length,
        bound: bound.length,
        missing,
        errors: Object.fromEntries(routes.filter((r) => r.bindError).map((r) => [r.port, r.bindError])),
      },
      http_listener: {
        host: this.config.EDGE_HTTP_HOST,
        port: this.config.EDGE_HTTP_PORT,
        bound: node?.httpBound ?? false,
      },
      port_range: { ...this.config.gatewayPorts, held: node?.gatewayBound ?? false, taken: node?.portsTaken ?? [] },
      checked_at: new Date().toISOString(),
    };
  }

  private async remove(id: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.getRepository(GatewayRoute).delete({ id });
      await notifyEdge(m, 'routes');
    });
  }
}
