import { DriverError } from '../driver-error';
import { AddressRequest, NetworkDriver, networkFullMessage } from '../network.driver';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK, portsOf } from './openstack-resources';

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
 * full" error here. A floating IP, when one is asked for, is associated
 * with that port, and goes with it.
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
    for (const port of await portsOf<NeutronPort>(this.client, id)) {
      // A floating IP outlives its port's deletion (allocated, associated with nothing): it goes first.
      for (const fip of await this.floatingIpsOf(port.id)) await this.client.delete('network', `/floatingips/${fip.id}`);
      await this.client.delete('network', `/ports/${port.id}`);
    }
  }

  /**
   * A floating IP on the resource's port, from the external network named
   * (name or id), else the only external one: the same address on every
   * repeat. The port must exist (ensureAddress first); a tenant subnet
   * with no router to the external network is an invalid error that says
   * so, a pool with no address left a quota error.
   */
  async ensureFloatingIp(id: string, externalNetwork = ''): Promise<string> {
    const port = await this.portOf(id);
    if (!port) throw new DriverError('not_found', `${id} has no address to put a floating IP on`);
    const existing = await this.floatingIpsOf(port.id);
    if (existing.length > 0) return keeper(existing, (f) => f.created_at ?? '').floating_ip_address;
    try {
      await this.client.post('network', '/floatingips', {
        floatingip: { floating_network_id: await this.externalNetwork(externalNetwork), port_id: port.id, description: `stratus ${id}` },
      });
    } catch (err) {
      // Another run of the job associated one first (Neutron allows one per fixed IP): that one is the answer.
      if (err instanceof OpenStackError && err.fault === 'FloatingIPPortAlreadyAssociated') return (await this.observeFloatingIp(id))!;
      if (err instanceof OpenStackError && err.fault === 'ExternalGatewayForFloatingIPNotFound') {
        throw new DriverError('invalid', `no router connects the network of ${id} to the external network: ${err.message}`);
      }
      if (err instanceof OpenStackError && err.fault === 'IpAddressGenerationFailure') throw new DriverError('quota', `the external network has no floating IP left`);
      throw err;
    }
    // As for ports: copies two racing runs made go, the oldest stays.
    const made = await this.floatingIpsOf(port.id);
    const kept = keeper(made, (f) => f.created_at ?? '');
    for (const extra of made) if (extra.id !== kept.id) await this.client.delete('network', `/floatingips/${extra.id}`);
    return kept.floating_ip_address;
  }

  /** The resource's floating IP now; null when it has none. */
  async observeFloatingIp(id: string): Promise<string | null> {
    const port = await this.portOf(id);
    if (!port) return null;
    const fips = await this.floatingIpsOf(port.id);
    return fips.length > 0 ? keeper(fips, (f) => f.created_at ?? '').floating_ip_address : null;
  }

  /** Gives the resource's floating IPs back to the pool; the port and its fixed address stay. None: fine. */
  async releaseFloatingIp(id: string): Promise<void> {
    for (const port of await portsOf<NeutronPort>(this.client, id)) {
      for (const fip of await this.floatingIpsOf(port.id)) await this.client.delete('network', `/floatingips/${fip.id}`);
    }
  }

  private async floatingIpsOf(portId: string): Promise<FloatingIp[]> {
    const { floatingips } = await this.client.get<{ floatingips: FloatingIp[] }>('network', '/floatingips', { query: { port_id: portId } });
    return floatingips;
  }

  private async externalNetwork(wanted: string): Promise<string> {
    const { networks } = await this.client.get<{ networks: Array<{ id: string; name: string }> }>('network', '/networks', {
      query: { 'router:external': true },
    });
    const match = wanted ? networks.filter((n) => n.id === wanted || n.name === wanted) : networks;
    if (match.length !== 1) {
      throw new DriverError('invalid', wanted ? `external network ${wanted} does not exist` : `the cloud has ${networks.length} external networks: name the one to use`);
    }
    return match[0].id;
  }

  async observe(id: string): Promise<string | null> {
    const port = await this.portOf(id);
    return port ? addressOf(port) : null;
  }

  /** The resource's port; copies a racing repeat made are deleted, the oldest stays. */
  private async portOf(id: string): Promise<NeutronPort | null> {
    const ports = await portsOf<NeutronPort>(this.client, id);
    if (ports.length === 0) return null;
    const kept = keeper(ports, (p) => p.created_at ?? '');
    for (const extra of ports) if (extra.id !== kept.id) await this.client.delete('network', `/ports/${extra.id}`);
    return kept;
  }
}

interface FloatingIp {
  id: string;
  floating_ip_address: string;
  port_id: string | null;
  created_at?: string;
}

function addressOf(port: NeutronPort): string {
  const v4 = port.fixed_ips.find((ip) => !ip.ip_address.includes(':')) ?? port.fixed_ips[0];
  if (!v4) throw new DriverError('invalid', `port ${port.id} has no address (its network has no subnet)`);
  return v4.ip_address;
}
