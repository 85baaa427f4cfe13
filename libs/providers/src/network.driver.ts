/** What a resource asks its network for: the resource's id is the key of its address. */
export interface AddressRequest {
  /** The instance id, or a database server's key (`<engine>-<id>`). */
  id: string;
  /** The catalog network the resource was created on (messages name it). */
  networkId: string;
  /** That network's range, as the catalog gives it. */
  cidr: string;
  /** What holds the address (`instance`, or a database engine), for operators. */
  kind: string;
}

/**
 * Addresses on some provider's networks, in the controller-runtime shape:
 * every operation is keyed by the resource id and safe to repeat. The local
 * provider leases loopback addresses of the network's range; a cloud one
 * reads what its network assigned to the resource's port.
 */
export interface NetworkDriver {
  /**
   * The resource's address: assigns one when it has none, and returns the
   * same one on every repeat. A network with no free address left is a
   * terminal DriverError (`quota`) whose message names the network.
   */
  ensureAddress(request: AddressRequest): Promise<string>;
  /** Gives the resource's address back to its network. Gone already: fine. */
  releaseAddress(id: string): Promise<void>;
  /** The resource's address now; null when it holds none. */
  observe(id: string): Promise<string | null>;
}

export const NETWORK_DRIVER = Symbol('NETWORK_DRIVER');

/** The message every provider gives for a full network, so the reason reads the same whatever runs. */
export function networkFullMessage(request: Pick<AddressRequest, 'networkId' | 'cidr'>): string {
  return `network ${request.networkId} has no free address left (${request.cidr}); delete a server on it or use another network`;
}
