import { DataSource, EntityManager } from 'typeorm';

/** The resource that holds a pool address: an instance or a managed database server, and its project. */
export interface LeaseHolder {
  kind: 'instance' | 'database';
  /** The lease's resource id: the instance id, or `<engine>-<id>` of a database server. */
  resourceId: string;
  projectId: string;
}

/*
 * Instances lease under their id, database servers under `<engine>-<id>`
 * (databaseServerKey). A lease whose resource row is gone has no holder.
 */
const HOLDER = `SELECT l.resource_id,
       CASE WHEN l.resource_kind = 'instance' THEN 'instance' ELSE 'database' END AS kind,
       COALESCE(i.project_id, d.project_id)::text AS project_id
  FROM address_leases l
  LEFT JOIN instances i ON l.resource_kind = 'instance' AND i.id::text = l.resource_id
  LEFT JOIN managed_databases d ON l.resource_kind <> 'instance' AND d.engine || '-' || d.id = l.resource_id
 WHERE l.address = $1::inet AND COALESCE(i.project_id, d.project_id) IS NOT NULL`;

/**
 * Who holds `address` now, from the address leases; null when nothing does
 * (an address of the pool no resource was given, or one released).
 */
export async function findLeaseHolder(db: DataSource | EntityManager, address: string): Promise<LeaseHolder | null> {
  const [row]: Array<{ resource_id: string; kind: LeaseHolder['kind']; project_id: string }> = await db.query(HOLDER, [address]);
  return row ? { kind: row.kind, resourceId: row.resource_id, projectId: row.project_id } : null;
}
