import { AddressRequest, DriverError, NetworkDriver, networkFullMessage } from '@stratus/providers';
import { FakeControl } from './fake-control';

interface FakeAddress {
  address: string;
  networkId: string;
  cidr: string;
}

/** An IPv4 address as a number, and back. */
const toNumber = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const toAddress = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

/**
 * The FAKE provider's network, in memory: a resource is given the lowest
 * free host address of its network's range, as the local provider leases
 * them, and keeps it until released.
 */
export class FakeNetworkDriver implements NetworkDriver {
  private readonly addresses = new Map<string, FakeAddress>();

  constructor(private readonly control: FakeControl) {
    for (const [id, held] of Object.entries(control.restore<Record<string, FakeAddress>>('addresses') ?? {})) this.addresses.set(id, held);
  }

  /** Addresses survive the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('addresses', Object.fromEntries(this.addresses));
  }

  async ensureAddress(request: AddressRequest): Promise<string> {
    await this.control.delay();
    this.control.strike('network.ensureAddress', 'before');
    const held = this.addresses.get(request.id);
    if (held) return held.address;
    const [network, bits] = request.cidr.split('/');
    const base = toNumber(network) - (toNumber(network) % 2 ** (32 - Number(bits)));
    const hosts = 2 ** (32 - Number(bits)) - 2;
    const used = new Set([...this.addresses.values()].map((a) => toNumber(a.address)));
    for (let n = 1; n <= hosts; n++) {
      if (used.has(base + n)) continue;
      const address = toAddress(base + n);
      this.addresses.set(request.id, { address, networkId: request.networkId, cidr: request.cidr });
      this.save();
      // Halfway: assigned, but the caller never heard of it; a repeat returns it.
      this.control.strike('network.ensureAddress', 'halfway');
      return address;
    }
    throw new DriverError('quota', networkFullMessage(request));
  }

  async releaseAddress(id: string): Promise<void> {
    await this.control.delay();
    this.control.strike('network.releaseAddress', 'before');
    if (this.addresses.delete(id)) this.save();
  }

  async observe(id: string): Promise<string | null> {
    await this.control.delay();
    return this.addresses.get(id)?.address ?? null;
  }
}
