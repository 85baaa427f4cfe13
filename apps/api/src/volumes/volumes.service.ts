import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig, CasPatch, compareAndSet, OutboxEntry, Principal, Volume, VOLUME_CAS, VolumeStatus } from '@stratus/core';
import { OutboxService, resourceJob } from '@stratus/queue';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { findOwnedInstance, UUID } from '../instances/owned-instance';
import { AttachVolumeDto, CreateVolumeDto, DetachVolumeDto } from './volume.dto';


/** Instances in these states cannot take a new attachment. */
const UNATTACHABLE = ['DELETING', 'ERROR'];

/**
 * Volumes of the caller's project. Every change is a compare-and-set on the
 * row plus an outbox job in one transaction; the worker makes it real.
 */
@Injectable()
export class VolumesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
  ) {}

  async create(dto: CreateVolumeDto, principal: Principal): Promise<Volume> {
    this.checkSize(dto.size, 'size');
    const [volume, entry] = await this.dataSource.transaction((m) =>
      this.insert(m, principal, { name: dto.name, sizeGb: dto.size, description: dto.description ?? null }),
    );
    this.outbox.dispatch([entry]);
    return volume;
  }

  /**
   * Inside the caller's transaction: a new volume row and its create job.
   * With `attachTo` the volume attaches to that instance once created.
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
    const entry = await this.outbox.write(manager, resourceJob('volume.create', id, { volumeId: id, generation: 1 }));
    return [row, entry];
  }

  checkSize(size: number, field: string): void {
    if (size > this.config.VOLUME_MAX_SIZE_GB) {
      throw new BadRequestException(`${field}: must not be greater than ${this.config.VOLUME_MAX_SIZE_GB}`);
    }
  }

  list(principal: Principal): Promise<Volume[]> {
    return this.dataSource.getRepository(Volume).find({
      where: { projectId: principal.projectId },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** The caller's volume; 404 when there is none, another project's included (its existence is not the caller's to learn). */
  async get(id: string, principal: Principal, manager = this.dataSource.manager): Promise<Volume> {
    const row = UUID.test(id) ? await manager.getRepository(Volume).findOneBy({ id, projectId: principal.projectId }) : null;
    if (!row) throw new NotFoundException(`volume ${id} not found`);
    return row;
  }

  async delete(id: string, principal: Principal): Promise<void> {
    const row = await this.get(id, principal);
    if (row.status === 'deleting') return;
    if (row.status !== 'available' && row.status !== 'error') {
      throw new ConflictException(`volume ${id} is ${row.status}: only an available or errored volume can be deleted${row.status === 'in-use' ? '; detach it first' : ''}`);
    }
    if (await this.transition(row, 'deleting', 'volume.delete')) return;
    // Lost to a change beside it: to a delete (gone, or deleting) it is the same outcome a repeat gets.
    const now = await this.dataSource.getRepository(Volume).findOneBy({ id });
    if (!now || now.status === 'deleting') return;
    throw new ConflictException(`volume ${id} changed meanwhile; try again`);
  }

  async attach(dto: AttachVolumeDto, principal: Principal): Promise<Volume> {
    const volume = await this.get(dto.volume_id, principal);
    const instance = await findOwnedInstance(this.dataSource, dto.instance_id, principal);
    if (UNATTACHABLE.includes(instance.status)) throw new ConflictException(`instance ${instance.id} is ${instance.status}: it cannot take a volume`);
    if (volume.status === 'in-use' || volume.status === 'attaching') {
      throw new ConflictException(`volume ${volume.id} is already attached to instance ${volume.instanceId} (attachment ${volume.attachmentId})`);
    }
    if (volume.status !== 'available') throw new ConflictException(`volume ${volume.id} is ${volume.status}: only an available volume can be attached`);
    return this.move(volume, 'attaching', 'volume.attach', { instanceId: instance.id, attachmentId: randomUUID(), statusReason: null });
  }

  async detach(dto: DetachVolumeDto, principal: Principal): Promise<Volume> {
    const volume = await this.get(dto.volume_id, principal);
    if (!volume.attachmentId || (volume.status !== 'in-use' && volume.status !== 'attaching')) {
      throw new ConflictException(`volume ${volume.id} is ${volume.status}: it is not attached`);
    }
    if (dto.attachment_id !== volume.attachmentId) {
      throw new BadRequestException(`attachment_id: ${dto.attachment_id} is not an attachment of volume ${volume.id}`);
    }
    if (volume.status === 'attaching') throw new ConflictException(`volume ${volume.id} is still attaching; detach it once it is in-use`);
    return this.move(volume, 'detaching', 'volume.detach');
  }

  /** One compare-and-set plus its job; a concurrent change answers 409 rather than acting on stale state. */
  /** The volume after `transition`; a change beside it since it was read is a 409. */
  private async move(row: Volume, to: VolumeStatus, job: 'volume.attach' | 'volume.detach', patch: CasPatch<Volume> = {}): Promise<Volume> {
    if (!(await this.transition(row, to, job, patch))) throw new ConflictException(`volume ${row.id} changed meanwhile; try again`);
    return this.dataSource.getRepository(Volume).findOneByOrFail({ id: row.id });
  }

  /** Moves the row from the state it was read in and sends the job that acts on it; false if it changed meanwhile. */
  private async transition(
    row: Volume,
    to: VolumeStatus,
    job: 'volume.attach' | 'volume.detach' | 'volume.delete',
    patch: CasPatch<Volume> = {},
  ): Promise<boolean> {
    const next = row.generation + 1;
    const entry = await this.dataSource.transaction(async (m) => {
      const moved = await compareAndSet(m, VOLUME_CAS, row.id, row.status, to, row.generation, { generation: next, ...patch });
      return moved ? this.outbox.write(m, resourceJob(job, row.id, { volumeId: row.id, generation: next })) : null;
    });
    if (!entry) return false;
    this.outbox.dispatch([entry]);
    return true;
  }
}
