import { EntityManager, In, IsNull, Not } from 'typeorm';
import { Flavor, Image, Keypair, Network, SecurityGroup } from './catalog.entities';

export interface CatalogSnapshot {
  flavors: Flavor[];
  /** The provider's images: public ones (a project's snapshot images are not the provider's catalog). */
  images: Array<Omit<Image, 'projectId'>>;
  networks: Network[];
  keypairs: Keypair[];
  securityGroups: SecurityGroup[];
}

/**
 * Makes the mirrored catalog equal to the provider's: upsert what it has,
 * delete what it dropped. Projects' own images (snapshots) are not the
 * provider's catalog: they are neither deleted nor overwritten here.
 */
export async function syncCatalog(manager: EntityManager, snapshot: CatalogSnapshot): Promise<void> {
  const images = snapshot.images.map((i) => ({ id: i.id, name: i.name, description: i.description, projectId: null }));
  const owned = new Set((await manager.getRepository(Image).find({ select: { id: true }, where: { projectId: Not(IsNull()) } })).map((i) => i.id));
  const sets: Array<[new () => object, object[], string, object]> = [
    [Flavor, snapshot.flavors, 'id', {}],
    [Image, images.filter((i) => !owned.has(i.id)), 'id', { projectId: IsNull() }],
    [Network, snapshot.networks, 'id', {}],
    [Keypair, snapshot.keypairs, 'name', {}],
    [SecurityGroup, snapshot.securityGroups, 'id', {}],
  ];
  for (const [entity, rows, key, scope] of sets) {
    const repo = manager.getRepository(entity);
    const keys = rows.map((r) => (r as Record<string, string>)[key]);
    // None left is every row of the scope: its key is never null (TypeORM refuses a delete without criteria).
    await repo.delete({ ...scope, [key]: keys.length ? Not(In(keys)) : Not(IsNull()) });
    if (rows.length) await repo.upsert(rows, [key]);
  }
}
