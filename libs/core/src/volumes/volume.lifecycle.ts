import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { Conflict, Invalid, NotFound } from '../errors/domain-errors';
import { findOwnedInstance, UUID } from '../instances/owned-instance';
import { JobOutbox } from '../outbox/job-outbox';
import { OutboxEntry } from '../outbox/outbox.entity';
import { Principal } from '../projects/projects.service';
import { CasPatch, compareAndSet } from '../status/compare-and-set';
import { VolumeStatus } from '../status/transitions';
import { VOLUME_CAS } from './volume-cas';
import { Volume } from './volume.entity';
import { ProjectQuotas } from '../quotas/project-quotas';

/** A volume as SPEC.md's create asks for it (size in GiB). */
export interface NewVolume {
  name: string;
  size: number;
  description?: string;
}

/** Instances in these states cannot take a new attachment. */
const UNATTACHABLE = ['DELETING', 'ERROR'];

/**
 * The life of a block storage volume of a project. Every change is a
 * compare-and-set on the row plus an outbox job in one transaction; the
 * worker makes it real.
 */
@Injectable()
export class VolumeLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
    private readonly quotas: ProjectQuotas,
  ) {}

  async create(spec: NewVolume, principal: Principal): Promise<Volume> {
    this.checkSize(spec.size, 'size');
    const [volume, entry] = await this.dataSource.transaction((m) => this.insert(m, principal, { name: spec.name, sizeGb: spec.size, description: spec.description ?? null }));
    this.outbox.dispatch([entry]);
    return volume;
  }

  /**
   * Inside the caller's transaction: a new volume row and its create job.
   * With `attachTo` the volume attaches to that instance once created (an
   * instance created with a `volume`).
   */
  async insert(
    manager: EntityManager,
    principal: Principal,
    spec: { name: string; sizeGb: number; description: string | null; attachTo?: string },
  ): Promise<[Volume, OutboxEntry]> {
    const id = randomUUID();
    const row = await manager.getRepository(Volume).save({
      id,
      projectId: principal.projectId,
      userId: principal.userId,
      name: spec.name,
      description: spec.description,
      sizeGb: spec.sizeGb,
      status: 'creating',
      statusReason: null,
      instanceId: spec.attachTo ?? null,
      attachmentId: spec.attachTo ? randomUUID() : null,
      attachedAt: null,
      generation: 1,
    });
    const { pending } = await this.quotas.enforce(manager, principal.projectId, 'volume_gb', spec.sizeGb);
    const entry = await this.outbox.writeJob(manager, 'volume.create', id, { volumeId: id, generation: 1 }, pending);
    return [row, entry];
  }

  /** The configured ceiling, which the DTO's static bound cannot know. */
  checkSize(size: number, field: string): void {
    if (size > this.config.VOLUME_MAX_SIZE_GB) {
      throw new Invalid(field, `must not be greater than ${this.config.VOLUME_MAX_SIZE_GB}`);
    }
  }

  /** A page of the project's volumes, newest first (keyset-page.ts). */
  list(principal: Principal, page: PageRequest): Promise<RowsPage<Volume>> {
    return keysetPage(this.dataSource, Volume, { projectId: principal.projectId }, page);
  }

  /** The caller's volume; NotFound when there is none, another project's included (its existence is not the caller's to learn). */
  async get(id: string, principal: Principal): Promise<Volume> {
    const row = UUID.test(id) ? await this.dataSource.getRepository(Volume).findOneBy({ id, projectId: principal.projectId }) : null;
    if (!row) throw new NotFound(`volume ${id} not found`);
    return row;
  }

  /** Moves an available (or errored) volume to deleting and hands the teardown to the worker. Repeating it is harmless. */
  async delete(id: string, principal: Principal): Promise<void> {
    const row = await this.get(id, principal);
    if (row.status === 'deleting') return;
    if (row.status !== 'available' && row.status !== 'error') {
      throw new Conflict(`volume ${id} is ${row.status}: only an available or errored volume can be deleted${row.status === 'in-use' ? '; detach it first' : ''}`);
    }
    if (await this.transition(row, 'deleting', 'volume.delete')) return;
    // Lost to a change beside it: to a delete (gone, or deleting) it is the same outcome a repeat gets.
    const now = await this.dataSource.getRepository(Volume).findOneBy({ id });
    if (!now || now.status === 'deleting') return;
    throw new Conflict(`volume ${id} changed meanwhile; try again`);
  }

  async attach(volumeId: string, instanceId: string, principal: Principal): Promise<Volume> {
    const volume = await this.get(volumeId, principal);
    const instance = await findOwnedInstance(this.dataSource, instanceId, principal);
    if (UNATTACHABLE.includes(instance.status)) throw new Conflict(`instance ${instance.id} is ${instance.status}: it cannot take a volume`);
    if (volume.status === 'in-use' || volume.status === 'attaching') {
      throw new Conflict(`volume ${volume.id} is already attached to instance ${volume.instanceId} (attachment ${volume.attachmentId})`);
    }
    if (volume.status !== 'available') throw new Conflict(`volume ${volume.id} is ${volume.status}: only an available volume can be attached`);
    return this.move(volume, 'attaching', 'volume.attach', { instanceId: instance.id, attachmentId: randomUUID(), statusReason: null });
  }

  async detach(volumeId: string, attachmentId: string, principal: Principal): Promise<Volume> {
    const volume = await this.get(volumeId, principal);
    if (!volume.attachmentId || (volume.status !== 'in-use' && volume.status !== 'attaching')) {
      throw new Conflict(`volume ${volume.id} is ${volume.status}: it is not attached`);
    }
    if (attachmentId !== volume.attachmentId) {
      throw new Invalid('attachment_id', `${attachmentId} is not an attachment of volume ${volume.id}`);
    }
    if (volume.status === 'attaching') throw new Conflict(`volume ${volume.id} is still attaching; detach it once it is in-use`);
    return this.move(volume, 'detaching', 'volume.detach');
  }

  /** The volume after `transition`; a change beside it since it was read is a Conflict rather than acting on stale state. */
  private async move(row: Volume, to: VolumeStatus, job: 'volume.attach' | 'volume.detach', patch: CasPatch<Volume> = {}): Promise<Volume> {
    if (!(await this.transition(row, to, job, patch))) throw new Conflict(`volume ${row.id} changed meanwhile; try again`);
    return this.dataSource.getRepository(Volume).findOneByOrFail({ id: row.id });
  }

  /** Moves the row from the state it was read in and sends the job that acts on it; false if it changed meanwhile. */
  private async transition(row: Volume, to: VolumeStatus, job: 'volume.attach' | 'volume.detach' | 'volume.delete', patch: CasPatch<Volume> = {}): Promise<boolean> {
    const next = row.generation + 1;
    const entry = await this.dataSource.transaction(async (m) => {
      const moved = await compareAndSet(m, VOLUME_CAS, row.id, row.status, to, row.generation, { generation: next, ...patch });
      return moved ? this.outbox.writeJob(m, job, row.id, { volumeId: row.id, generation: next }) : null;
    });
    if (!entry) return false;
    this.outbox.dispatch([entry]);
    return true;
  }
}
