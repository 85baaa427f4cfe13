import { EntityManager } from 'typeorm';

/** Serialises allocation so two creates never pick the same free address. */
const ALLOCATION_LOCK = 0x57a7_0001;

/**
 * Hands out the lowest free address of the pool to one resource, inside the
 * caller's transaction; freed by `release` when the resource is gone.
 */
export async function leaseAddress(
  manager: EntityManager,
  pool: string,
  resourceKind: string,
  resourceId: string,
): Promise<string> {
  const prefix = Number(pool.split('/')[1]);
  const size = 2 ** (32 - prefix) - 2;
  await manager.query('SELECT pg_advisory_xact_lock($1)', [ALLOCATION_LOCK]);
  const rows: Array<{ address: string }> = await manager.query(
    `INSERT INTO address_leases (address, resource_kind, resource_id)
     SELECT c.a, $3, $4 FROM (SELECT host(network($1::cidr) + n)::inet AS a FROM generate_series(1, $2::int) n) c
     WHERE NOT EXISTS (SELECT 1 FROM address_leases l WHERE l.address = c.a)
     LIMIT 1
     RETURNING host(address) AS address`,
    [pool, size, resourceKind, resourceId],
  );
  if (rows.length === 0) throw new AddressPoolExhaustedError(pool);
  return rows[0].address;
}

export async function releaseAddress(manager: EntityManager, resourceId: string): Promise<void> {
  await manager.query('DELETE FROM address_leases WHERE resource_id = $1', [resourceId]);
}

export class AddressPoolExhaustedError extends Error {
  constructor(pool: string) {
    super(`no free address left in ${pool}`);
  }
}
