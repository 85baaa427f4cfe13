import { DataSource, EntityManager } from 'typeorm';

/** The resource that holds an address: an instance or a managed database server, and its project. */
export interface AddressHolder {
  kind: 'instance' | 'database';
  /** The resource's key: the instance id, or `<engine>-<id>` of a database server (databaseServerKey). */
  resourceId: string;
  projectId: string;
}

/*
 * The records say who holds an address: the worker writes the address its
 * network driver assigned into the row, and takes it out again before the
 * driver releases it. A row being deleted holds nothing any more.
 */
const HOLDER = `SELECT id::text AS resource_id, 'instance' AS kind, project_id::text AS project_id
    FROM instances WHERE address = $1::inet AND status <> 'DELETING'
  UNION ALL
  SELECT engine || '-' || id, 'database', project_id::text
    FROM managed_databases WHERE address = $1::inet AND status <> 'deleting'`;

/**
 * Who holds `address` now, from the instance and database records; null
 * when nothing does (an address no resource was given, one released, or
 * one whose resource is being deleted).
 */
export async function findAddressHolder(db: DataSource | EntityManager, address: string): Promise<AddressHolder | null> {
  const [row]: Array<{ resource_id: string; kind: AddressHolder['kind']; project_id: string }> = await db.query(HOLDER, [address]);
  return row ? { kind: row.kind, resourceId: row.resource_id, projectId: row.project_id } : null;
}
