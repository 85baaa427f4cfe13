import { DataSource } from 'typeorm';
import { hotFindOne } from '../database/hot-queries';
import { Forbidden, NotFound } from '../errors/domain-errors';
import { Principal } from '../projects/projects.service';
import { Instance } from './instance.entity';

/** Instance ids are UUIDs; anything else names no instance. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The caller's instance `id`, for every life that names one (its own, a
 * volume attachment, a proxy host): NotFound when there is none, Forbidden
 * when it is another project's. A function, not a method of InstanceLifecycle,
 * because the volume and proxy host lives need it and the instance life
 * composes them. A hot read: clients poll instances until ACTIVE.
 */
export async function findOwnedInstance(dataSource: DataSource, id: string, principal: Principal): Promise<Instance> {
  const row = UUID.test(id) ? await hotFindOne(dataSource, Instance, { id }) : undefined;
  if (!row) throw new NotFound(`instance ${id} not found`);
  if (row.projectId !== principal.projectId) throw new Forbidden(`instance ${id} belongs to another project`);
  return row;
}
