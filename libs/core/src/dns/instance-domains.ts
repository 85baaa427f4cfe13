import { EntityManager } from 'typeorm';

/**
 * Rewrites `metadata.domains` of an instance from its proxy hosts: a
 * comma-separated list (metadata values are strings), oldest first; the key
 * is removed when the instance has none. Run in the transaction that changed
 * the proxy hosts.
 */
export async function refreshInstanceDomains(manager: EntityManager, instanceId: string): Promise<void> {
  // The instance row first: a concurrent change of its proxy hosts waits here, and the UPDATE
  // below then reads the list afresh. (Waiting in the UPDATE itself, it would rewrite the list
  // from its older snapshot and drop the other's name.) NO KEY: proxy host inserts hold KEY
  // SHARE locks on the row for their foreign key.
  await manager.query(`SELECT 1 FROM instances WHERE id = $1 FOR NO KEY UPDATE`, [instanceId]);
  await manager.query(
    `UPDATE instances i SET updated_at = now(), metadata = CASE
       WHEN d.domains IS NULL THEN i.metadata - 'domains'
       ELSE jsonb_set(i.metadata, '{domains}', to_jsonb(d.domains)) END
     FROM (SELECT string_agg(hostname, ',' ORDER BY created_at, hostname) AS domains FROM proxy_hosts WHERE instance_id = $1) d
     WHERE i.id = $1`,
    [instanceId],
  );
}

/** A DNS name: labels of lowercase letters, digits and inner hyphens, 253 characters at most. */
export function isHostname(name: string): boolean {
  return name.length <= 253 && name.split('.').every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l));
}
