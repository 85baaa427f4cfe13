import { DataSource, EntityManager } from 'typeorm';

/*
 * The local provider's address pool: loopback addresses of a network's
 * range, one lease (table address_leases) per resource. The lowest free
 * host number is 1 or the successor of a leased one whose own successor is
 * free: found from the leases alone, never by listing the whole pool (a
 * set-returning function over the pool is materialised in full).
 */
const LOWEST_FREE = `WITH used AS (
     SELECT (address - network($1::cidr)) AS n FROM address_leases WHERE address << $1::cidr
   ), free AS (
     SELECT 1::bigint AS n WHERE NOT EXISTS (SELECT 1 FROM used WHERE n = 1)
     UNION ALL
     SELECT u.n + 1 FROM used u WHERE NOT EXISTS (SELECT 1 FROM used v WHERE v.n = u.n + 1)
   )
   SELECT host(network($1::cidr) + min(n)) AS address FROM free WHERE n <= $2 HAVING min(n) IS NOT NULL`;

const HELD = `SELECT host(address) AS address FROM address_leases WHERE resource_id = $1`;

function lowestFreeParams(pool: string): [string, number] {
  return [pool, 2 ** (32 - Number(pool.split('/')[1])) - 2];
}

/**
 * The address leased to `resourceId`, leasing the lowest free one of `pool`
 * when it holds none: a repeat returns the same address.
 *
 * No lock: an address is claimed by inserting its lease (the address is the
 * primary key, the resource id unique). An insert that meets a concurrent
 * one's lease of the same address waits for it and inserts nothing; so does
 * a concurrent ensure of the same resource. Either way the pool is read
 * again, and the winner has committed by then, so every retry is someone
 * else's progress. Run outside a transaction (or in READ COMMITTED, as all
 * of ours are: each read sees the leases committed since the last).
 */
export async function leaseAddress(db: DataSource | EntityManager, pool: string, resourceKind: string, resourceId: string): Promise<string> {
  for (;;) {
    const [held]: Array<{ address: string }> = await db.query(HELD, [resourceId]);
    if (held) return held.address;
    const [free]: Array<{ address: string }> = await db.query(LOWEST_FREE, lowestFreeParams(pool));
    if (!free) throw new AddressPoolExhaustedError(pool);
    const claimed: unknown[] = await db.query(`INSERT INTO address_leases (address, resource_kind, resource_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING address`, [
      free.address,
      resourceKind,
      resourceId,
    ]);
    if (claimed.length === 1) return free.address;
  }
}

/** The address leased to `resourceId`, or null. */
export async function leasedAddress(db: DataSource | EntityManager, resourceId: string): Promise<string | null> {
  const [held]: Array<{ address: string }> = await db.query(HELD, [resourceId]);
  return held?.address ?? null;
}

export async function releaseAddress(db: DataSource | EntityManager, resourceId: string): Promise<void> {
  await db.query('DELETE FROM address_leases WHERE resource_id = $1', [resourceId]);
}

export class AddressPoolExhaustedError extends Error {
  constructor(pool: string) {
    super(`no free address left in ${pool}`);
  }
}
