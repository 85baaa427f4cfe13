import { DriverError } from '../driver-error';
import { BackendSpec, ListenerSpec, LoadBalancerDriver, ObservedListener } from '../load-balancer.driver';

/**
 * The drivers the openstack provider does not have yet (Octavia load
 * balancers): whatever asks them to make something gets a terminal error
 * that says so; what only looks finds nothing, so the reconcilers run
 * without noise.
 */
function unbuilt(what: string): DriverError {
  return new DriverError('invalid', `${what} are not built on the openstack provider yet`);
}

export class OpenStackLoadBalancerDriver implements LoadBalancerDriver {
  async ensureListener(_spec: ListenerSpec): Promise<void> {
    throw unbuilt('load balancers (Octavia)');
  }
  async deleteListener(_id: string): Promise<void> {}
  async addBackend(_listenerId: string, _backend: BackendSpec): Promise<void> {
    throw unbuilt('load balancers (Octavia)');
  }
  async drainBackend(_listenerId: string, _backend: BackendSpec): Promise<void> {
    throw unbuilt('load balancers (Octavia)');
  }
  async removeBackend(_listenerId: string, _backend: BackendSpec): Promise<void> {}
  async observe(_id: string): Promise<ObservedListener | null> {
    return null;
  }
  async listenerIds(_prefix: string): Promise<string[]> {
    return [];
  }
}
