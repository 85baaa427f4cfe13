import { DataSource, EntityManager } from 'typeorm';
import { hotQuery } from '../database/hot-queries';
import { isUniqueViolation } from '../database/constraint-violation';
import { Conflict } from '../errors/domain-errors';
import { AddressLease } from './address-lease.entity';

/*
 * The lowest free host number is 1 or the successor of a leased one whose
 * own successor is free: found from the leases alone, never by listing the
 * whole pool (a set-returning function over the pool is materialised in full).
 */
const LOWEST_FREE = `WITH used AS (
     SELECT (address - network($1::cidr)) AS n FROM address_leases WHERE address << $1::cidr
   ), free AS (
     SELECT 1::bigint AS n WHERE NOT EXISTS (SELECT 1 FROM used WHERE n = 1)
     UNION ALL
     SELECT u.n + 1 FROM used u WHERE NOT EXISTS (SELECT 1 FROM used v WHERE v.n = u.n + 1)
   )
   SELECT host(network($1::cidr) + min(n)) AS address FROM free WHERE n <= $2 HAVING min(n) IS NOT NULL`;

function lowestFreeParams(pool: string): [string, number] {
  return [pool, 2 ** (32 - Number(pool.split('/')[1])) - 2];
}

/*
 * No lock: an address is claimed by inserting its lease (the address is the
 * primary key). A create that loses the race to a concurrent one finds the
 * address taken and reads the pool again; the winner has committed by then,
 * so every retry is someone else's progress.
 */

/** The lowest free address of the pool, read outside any transaction. */
export async function lowestFreeAddress(dataSource: DataSource, pool: string): Promise<string> {
  const [free] = await hotQuery<{ address: string }>(dataSource, LOWEST_FREE, lowestFreeParams(pool));
  if (!free) throw new AddressPoolExhaustedError(pool);
  return free.address;
}

/**
 * For a create that inserts its lease itself, outside a transaction (with
 * `insertTogether`): runs `insert` with the lowest free address, and again
 * with a fresh one when the insert finds that address taken since the read.
 */
export async function withFreeAddress<T>(dataSource: DataSource, pool: string, insert: (address: string) => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await insert(await lowestFreeAddress(dataSource, pool));
    } catch (err) {
      if (!isAddressTaken(dataSource, err)) throw err;
    }
  }
}

/**
 * Leases the lowest free address of the pool to one resource, inside the
 * caller's transaction (READ COMMITTED, as all of ours: each read sees the
 * leases committed since the last); freed by `release` when the resource is gone.
 */
export async function leaseAddress(manager: EntityManager, pool: string, resourceKind: string, resourceId: string): Promise<string> {
  for (;;) {
    const [free]: Array<{ address: string }> = await manager.query(LOWEST_FREE, lowestFreeParams(pool));
    if (!free) throw new AddressPoolExhaustedError(pool);
    // A concurrent create's lease of the same address makes this wait for it, then insert nothing.
    const claimed: unknown[] = await manager.query(
      `INSERT INTO address_leases (address, resource_kind, resource_id) VALUES ($1, $2, $3) ON CONFLICT (address) DO NOTHING RETURNING address`,
      [free.address, resourceKind, resourceId],
    );
    if (claimed.length === 1) return free.address;
  }
}

/**
 * True when `err` is an insert's violation of the leases' primary key (the
 * address): it was taken since it was read. The constraint is named as the
 * migrations named it, by TypeORM's naming strategy (error texts are localized).
 */
function isAddressTaken(dataSource: DataSource, err: unknown): boolean {
  const table = dataSource.getMetadata(AddressLease).tableName;
  return isUniqueViolation(err, dataSource.namingStrategy.primaryKeyName(table, ['address']));
}

export async function releaseAddress(manager: EntityManager, resourceId: string): Promise<void> {
  await manager.query('DELETE FROM address_leases WHERE resource_id = $1', [resourceId]);
}

export class AddressPoolExhaustedError extends Error {
  constructor(pool: string) {
    super(`no free address left in ${pool}`);
  }
}

/**
 * For `.catch` on a create's lease: a full pool is a Conflict naming the
 * create's `network_id`, as Neutron answers a port create on a full subnet
 * (IpAddressGenerationFailure): the caller can free an address or pick
 * another network. Nothing was created. Anything else is rethrown.
 */
export function networkFull(err: unknown): never {
  if (err instanceof AddressPoolExhaustedError) {
    throw new Conflict(`network_id: ${err.message}; delete a server on it or use another network`);
  }
  throw err;
}
