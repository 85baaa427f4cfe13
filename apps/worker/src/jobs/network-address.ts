import { Network } from '@stratus/core';
import { AddressRequest, DriverError } from '@stratus/providers';
import { DataSource } from 'typeorm';

/**
 * What a resource asks the network driver for: its key, and its network's
 * range as the catalog has it. A network gone from the catalog since the
 * create is terminal: nothing can be assigned on it.
 */
export async function addressRequest(db: DataSource, id: string, networkId: string, kind: string): Promise<AddressRequest> {
  const network = await db.getRepository(Network).findOneBy({ id: networkId });
  if (!network) throw new DriverError('not_found', `network ${networkId} no longer exists`);
  return { id, networkId, cidr: network.cidr, kind };
}
