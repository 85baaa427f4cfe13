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
  // The lowest free host number is 1 or the successor of a leased one whose
  // own successor is free: found from the leases alone, never by listing the
  // whole pool (a set-returning function over the pool is materialised in full).
  const rows: Array<{ address: string }> = await manager.query(
    `WITH used AS (
       SELECT (address - network($1::cidr)) AS n FROM address_leases WHERE address << $1::cidr
     ), free AS (
       SELECT 1::bigint AS n WHERE NOT EXISTS (SELECT 1 FROM used WHERE n = 1)
       UNION ALL
       SELECT u.n + 1 FROM used u WHERE NOT EXISTS (SELECT 1 FROM used v WHERE v.n = u.n + 1)
     )
     INSERT INTO address_leases (address, resource_kind, resource_id)
     SELECT host(network($1::cidr) + min(n))::inet, $3, $4 FROM free WHERE n <= $2
     HAVING min(n) IS NOT NULL
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
