import { Inject, Injectable, Logger } from '@nestjs/common';
import { countRepair } from '@stratus/core';
import { listenerFault, LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '@stratus/providers';
import { hostListenerId, HOST_LISTENER_PREFIX, ProxyHostTarget } from './host-listener';
import { HostListeners } from './host-listeners';
import { holdsAsWanted, OneBackendListener } from './one-backend-listener';

/**
 * Level-based repair of proxy hosts against the provider, both ways, as
 * RoutesReconciler does for routes: a proxy host whose listener is missing
 * or not as it asks (name, HTTP listener, its instance's address and its
 * forward port) is made again; a `host-*` listener no proxy host asks for
 * (its delete job lost with Redis, its instance's address given up) is
 * deleted. Nothing to write back: a proxy host has no status of its own.
 */
@Injectable()
export class HostsReconciler {
  private readonly logger = new Logger(HostsReconciler.name);

  constructor(
    private readonly listeners: HostListeners,
    @Inject(LOAD_BALANCER_DRIVER) private readonly driver: LoadBalancerDriver,
  ) {}

  async sweep(): Promise<void> {
    // The listeners first: one made after this read has a proxy host committed before it, so the read below sees that proxy host.
    const held = await this.driver.listenerIds(HOST_LISTENER_PREFIX);
    const targets = await this.listeners.targets();
    const wanted = new Map<string, { target: ProxyHostTarget; want: OneBackendListener }>();
    for (const target of targets) {
      const want = this.listeners.want(target);
      if (want) wanted.set(want.listener.id, { target, want });
    }
    for (const id of held.filter((h) => !wanted.has(h))) {
      await this.driver.deleteListener(id);
      countRepair('hosts', 'removed_listener');
      this.logger.log({ listener: id }, 'deleted a proxy host listener nothing asks for');
    }
    for (const [id, { target, want }] of wanted) {
      try {
        const seen = await this.driver.observe(id);
        if (holdsAsWanted(seen, want)) continue;
        // apply reads the proxy host again and looks again after the change: a job racing this one does no harm.
        // (Not made: the proxy host or its instance's address went meanwhile, and its listener with them.)
        if ((await this.listeners.apply(target.id)) !== 'made') continue;
        // A listener the provider still does not serve for the same reason (a port another process holds) was not repaired:
        // said once, when its fault is new, not counted every sweep.
        const fault = listenerFault((await this.driver.observe(id)) ?? { status: 'missing' });
        if (fault) {
          if (fault !== (seen && listenerFault(seen))) this.logger.warn({ proxyHost: target.id, listener: id, fault }, 'the provider does not serve the listener of a proxy host');
          continue;
        }
        countRepair('hosts', 'remade_listener');
        this.logger.log({ proxyHost: target.id, listener: hostListenerId(target.id) }, 'made the listener of a proxy host again');
      } catch (err) {
        // The next sweep tries again; the other proxy hosts are not held up.
        this.logger.error({ proxyHost: target.id, err: String(err) }, 'cannot reconcile the listener of a proxy host');
      }
    }
  }
}
