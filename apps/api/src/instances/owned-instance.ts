import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { hotFindOne, Instance, Principal } from '@stratus/core';
import { DataSource } from 'typeorm';

/** Instance ids are UUIDs; anything else names no instance. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The caller's instance `id`, for every route that names one (its own, a
 * volume attachment, a proxy host): 404 when there is none, 403 when it is
 * another project's. A hot read: clients poll instances until ACTIVE.
 */
export async function findOwnedInstance(dataSource: DataSource, id: string, principal: Principal): Promise<Instance> {
  const row = UUID.test(id) ? await hotFindOne(dataSource, Instance, { id }) : undefined;
  if (!row) throw new NotFoundException(`instance ${id} not found`);
  if (row.projectId !== principal.projectId) throw new ForbiddenException(`instance ${id} belongs to another project`);
  return row;
}
