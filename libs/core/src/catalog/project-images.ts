import { EntityManager } from 'typeorm';
import { Image } from './catalog.entities';

/** A project's own image (a snapshot of one of its instances) as the catalog keeps it. */
export interface ProjectImage {
  id: string;
  name: string;
  description: string;
  projectId: string;
}

/**
 * Records a project's image in the catalog, after the provider made it:
 * only that project lists it and boots from it (CatalogLookups). Safe to
 * repeat; an id the provider's catalog or another project holds is refused
 * (false), never taken over.
 */
export async function recordProjectImage(manager: EntityManager, image: ProjectImage): Promise<boolean> {
  const rows: Array<{ id: string }> = await manager.query(
    `INSERT INTO images (id, name, description, project_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description WHERE images.project_id = EXCLUDED.project_id
     RETURNING id`,
    [image.id, image.name, image.description, image.projectId],
  );
  return rows.length === 1;
}

/** Removes a project's image from the catalog (before the provider deletes it, so nothing new boots from it). */
export async function forgetProjectImage(manager: EntityManager, id: string, projectId: string): Promise<void> {
  await manager.getRepository(Image).delete({ id, projectId });
}
