import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, countRepair, GatewayRoute } from '@stratus/core';
import { DriverError, LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '@stratus/providers';
import { DataSource } from 'typeorm';
import { ROUTE_LISTENER_PREFIX, routeListenerId } from './route-listener';
import { RouteListeners } from './route-listeners';

/**
 * Level-based repair of gateway routes against the provider, both ways: a
 * route whose listener is missing or not as the route asks is made again;
 * a route listener with no route (its delete job lost with Redis, say) is
 * deleted. The listener's verdict is written back to the route, so health
 * says what serves; so is the provider's refusal or failure to make it
 * again (an Octavia load balancer in ERROR that keeps failing), until a
 * sweep makes it. A route still being created is its job's for a while.
 */
@Injectable()
export class RoutesReconciler {
  private readonly logger = new Logger(RoutesReconciler.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly listeners: RouteListeners,
    @Inject(LOAD_BALANCER_DRIVER) private readonly driver: LoadBalancerDriver,
    private readonly config: AppConfig,
  ) {}

  async sweep(): Promise<void> {
    // The listeners first: one made after this read has a route committed before it, so the read below sees that route.
    const held = await this.driver.listenerIds(ROUTE_LISTENER_PREFIX);
    const routes = await this.dataSource.getRepository(GatewayRoute).find({ order: { port: 'ASC' } });
    const wanted = new Set(routes.map((r) => routeListenerId(r.id)));
    for (const id of held.filter((h) => !wanted.has(h))) {
      await this.driver.deleteListener(id);
      countRepair('routes', 'removed_listener');
      this.logger.log({ listener: id }, 'deleted the listener of a route that is gone');
    }
    for (const route of routes) {
      if (!route.boundAt && !route.bindError && Date.now() - route.createdAt.getTime() < this.config.LOST_JOB_GRACE_MS) continue;
      try {
        const seen = await this.listeners.ensure(route);
        if (seen && (await this.listeners.record(route.id, seen.status))) {
          countRepair('routes', 'listener_status_changed');
          this.logger.log({ route: route.id, port: route.port, status: seen.status }, 'route listener status changed');
        }
      } catch (err) {
        // The next sweep tries again; the other routes are not held up. A route past its create is not served as it asks
        // meanwhile, and says why (one being created has its job's verdict: an error written now would end its create).
        this.logger.error({ route: route.id, port: route.port, err: String(err) }, 'cannot reconcile the listener of a route');
        if (err instanceof DriverError && (route.boundAt || route.bindError) && (await this.listeners.record(route.id, err.message))) {
          countRepair('routes', 'listener_status_changed');
        }
      }
    }
  }
}
