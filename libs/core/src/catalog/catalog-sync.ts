import { EntityManager, Not, In } from 'typeorm';
import { Flavor, Image, Keypair, Network, SecurityGroup } from './catalog.entities';

export interface CatalogSnapshot {
  flavors: Flavor[];
  images: Image[];
  networks: Network[];
  keypairs: Keypair[];
  securityGroups: SecurityGroup[];
}

/** Makes the mirrored catalog equal to the provider's: upsert what it has, delete what it dropped. */
export async function syncCatalog(manager: EntityManager, snapshot: CatalogSnapshot): Promise<void> {
  const sets: Array<[new () => object, object[], string]> = [
    [Flavor, snapshot.flavors, 'id'],
    [Image, snapshot.images, 'id'],
    [Network, snapshot.networks, 'id'],
    [Keypair, snapshot.keypairs, 'name'],
    [SecurityGroup, snapshot.securityGroups, 'id'],
  ];
  for (const [entity, rows, key] of sets) {
    const repo = manager.getRepository(entity);
    const keys = rows.map((r) => (r as Record<string, string>)[key]);
    await repo.delete(keys.length ? { [key]: Not(In(keys)) } : {});
    if (rows.length) await repo.upsert(rows, [key]);
  }
}
