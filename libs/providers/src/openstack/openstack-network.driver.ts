import { DriverError } from '../driver-error';
import { AddressRequest, NetworkDriver, networkFullMessage } from '../network.driver';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK } from './openstack-resources';

interface NeutronPort {
  id: string;
  name: string;
  network_id: string;
  created_at?: string;
  fixed_ips: Array<{ subnet_id: string; ip_address: string }>;
}

/**
 * Addresses as Neutron ports: one port per resource id, named after it,
 * on the resource's catalog network; the address is the port's fixed IP,
 * and the compute driver boots the server on that port. A full subnet is
 * Neutron's 409 IpAddressGenerationFailure, the provider-wide "network
 * full" error here.
 */
export class OpenStackNetworkDriver implements NetworkDriver {
  constructor(private readonly client: OpenStackClient) {}

  async ensureAddress(request: AddressRequest): Promise<string> {
    const existing = await this.portOf(request.id);
    if (existing) return addressOf(existing);
    try {
      await this.client.post('network', '/ports', {
        port: { network_id: request.networkId, name: MARK.name(request.id), description: `stratus ${request.kind} ${request.id}` },
      });
    } catch (err) {
      if (err instanceof OpenStackError && err.fault === 'IpAddressGenerationFailure') throw new DriverError('quota', networkFullMessage(request));
      if (err instanceof OpenStackError && err.status === 404) throw new DriverError('invalid', `network ${request.networkId} does not exist`);
      throw err;
    }
    // Looked up again rather than taken from the answer: two runs that raced both see the one that stays.
    const port = await this.portOf(request.id);
    if (!port) throw new DriverError('retryable', `the port of ${request.id} is not listed yet`);
    return addressOf(port);
  }

  async releaseAddress(id: string): Promise<void> {
    for (const port of await this.portsOf(id)) await this.client.delete('network', `/ports/${port.id}`);
  }

  async observe(id: string): Promise<string | null> {
    const port = await this.portOf(id);
    return port ? addressOf(port) : null;
  }

  private async portsOf(id: string): Promise<NeutronPort[]> {
    const { ports } = await this.client.get<{ ports: NeutronPort[] }>('network', '/ports', { query: { name: MARK.name(id) } });
    return ports;
  }

  /** The resource's port; copies a racing repeat made are deleted, the oldest stays. */
  private async portOf(id: string): Promise<NeutronPort | null> {
    const ports = await this.portsOf(id);
    if (ports.length === 0) return null;
    const kept = keeper(ports, (p) => p.created_at ?? '');
    for (const extra of ports) if (extra.id !== kept.id) await this.client.delete('network', `/ports/${extra.id}`);
    return kept;
  }
}

function addressOf(port: NeutronPort): string {
  const v4 = port.fixed_ips.find((ip) => !ip.ip_address.includes(':')) ?? port.fixed_ips[0];
  if (!v4) throw new DriverError('invalid', `port ${port.id} has no address (its network has no subnet)`);
  return v4.ip_address;
}
