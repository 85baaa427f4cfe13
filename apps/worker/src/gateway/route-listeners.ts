import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, GatewayRoute } from '@stratus/core';
import { LOAD_BALANCER_DRIVER, LoadBalancerDriver, ObservedListener } from '@stratus/providers';
import { DataSource } from 'typeorm';
import { holdsAsWanted, makeOneBackend } from './one-backend-listener';
import { routeListener, routeListenerId } from './route-listener';

/** Where a route's listener stands: 'ok', 'pending', or why the provider does not serve it. */
export type ListenerStatus = string;

/**
 * A gateway route's listener on the load-balancer driver, for the route
 * jobs and the reconciler alike: made as the route asks, and the provider's
 * verdict written to the route (gateway_routes.bound_at / bind_error), where
 * the api's create waits for it.
 */
@Injectable()
export class RouteListeners {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    @Inject(LOAD_BALANCER_DRIVER) private readonly driver: LoadBalancerDriver,
  ) {}

  route(id: string): Promise<GatewayRoute | null> {
    return this.dataSource.getRepository(GatewayRoute).findOneBy({ id });
  }

  /**
   * Brings the route's listener to what the route asks (only what differs:
   * a listener as wanted is left alone) and says where it stands. Returns
   * null when the route went meanwhile: its listener is gone too then.
   */
  async ensure(route: GatewayRoute, seen?: ObservedListener | null): Promise<ObservedListener | null> {
    const id = routeListenerId(route.id);
    const want = routeListener(route, this.config.GATEWAY_HOST);
    seen ??= await this.driver.observe(id);
    if (holdsAsWanted(seen, want)) return seen;
    await makeOneBackend(this.driver, want, seen);
    // Deleted while the listener was being made: that delete's job may have run before it, so it goes here.
    if (!(await this.route(route.id))) {
      await this.driver.deleteListener(id);
      return null;
    }
    return this.driver.observe(id);
  }

  observe(routeId: string): Promise<ObservedListener | null> {
    return this.driver.observe(routeListenerId(routeId));
  }

  delete(routeId: string): Promise<void> {
    return this.driver.deleteListener(routeListenerId(routeId));
  }

  /**
   * Removes the routes that reach `lease` and deletes their listeners, for
   * a resource about to release its address: done before the release, so
   * no port still forwards to the address once another project may lease
   * it. (The release's cascade would remove the routes too, but their
   * listeners would then wait for the relay to enqueue their delete jobs.)
   */
  async removeRoutesTo(lease: string): Promise<void> {
    // TypeORM answers a DELETE with [rows, count].
    const [gone]: [Array<{ id: string }>, number] = await this.dataSource.query(`DELETE FROM gateway_routes WHERE target_lease = $1 RETURNING id`, [lease]);
    for (const { id } of gone) await this.delete(id);
  }

  /** Writes the listener's status to the route when it says more than the route does; whether it did. */
  async record(routeId: string, status: ListenerStatus): Promise<boolean> {
    if (status === 'pending') return false;
    const [, changed] =
      status === 'ok'
        ? await this.dataSource.query(
            `UPDATE gateway_routes SET bound_at = COALESCE(bound_at, now()), bind_error = NULL WHERE id = $1 AND (bound_at IS NULL OR bind_error IS NOT NULL)`,
            [routeId],
          )
        : await this.dataSource.query(`UPDATE gateway_routes SET bound_at = NULL, bind_error = $2 WHERE id = $1 AND bind_error IS DISTINCT FROM $2`, [routeId, status]);
    return changed > 0;
  }
}
