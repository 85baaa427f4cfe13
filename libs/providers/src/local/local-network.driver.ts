import { DataSource } from 'typeorm';
import { DriverError } from '../driver-error';
import { AddressRequest, NetworkDriver, networkFullMessage } from '../network.driver';
import { AddressPoolExhaustedError, leaseAddress, leasedAddress, releaseAddress } from './address-pool';

/**
 * The local provider's network: every network is a range of loopback
 * addresses (LOCAL_ADDRESS_POOL by default), and a resource leases the lowest
 * free one of its network's range. The leases live in PostgreSQL beside the
 * resources, so they outlive the worker like a cloud network's ports do.
 */
export class LocalNetworkDriver implements NetworkDriver {
  constructor(private readonly db: () => DataSource) {}

  async ensureAddress(request: AddressRequest): Promise<string> {
    try {
      return await leaseAddress(this.db(), request.cidr, request.kind, request.id);
    } catch (err) {
      if (err instanceof AddressPoolExhaustedError) throw new DriverError('quota', networkFullMessage(request));
      throw err;
    }
  }

  releaseAddress(id: string): Promise<void> {
    return releaseAddress(this.db(), id);
  }

  observe(id: string): Promise<string | null> {
    return leasedAddress(this.db(), id);
  }
}
