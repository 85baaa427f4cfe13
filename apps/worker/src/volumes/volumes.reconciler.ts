import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, compareAndSet, countRepair, Volume, VOLUME_CAS } from '@stratus/core';
import { VOLUME_DRIVER, VolumeDriver } from '@stratus/providers';
import { JobName, QUEUES, resourceJob } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ensureJob } from '../jobs/lost-jobs';
import { SWEEP_BATCH } from '../jobs/live-batches';

/** Below every volume id: where the first batch starts. */
const NO_ID = '00000000-0000-0000-0000-000000000000';

const JOB_OF: Partial<Record<Volume['status'], JobName & `volume.${string}`>> = {
  creating: 'volume.create',
  attaching: 'volume.attach',
  detaching: 'volume.detach',
  deleting: 'volume.delete',
};

/**
 * Level-based repair of volumes: re-enqueues jobs Redis lost for rows in a
 * moving state, and releases attachments whose instance is gone or being
 * deleted (a deleted server takes its attachments with it, as in Cinder).
 */
@Injectable()
export class VolumesReconciler {
  private readonly logger = new Logger(VolumesReconciler.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(VOLUME_DRIVER) private readonly driver: VolumeDriver,
    @InjectQueue(QUEUES.volumes) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  /** A batch at a time, each read from where the last ended (id order): the cost per volume is the same at any size. */
  async sweep(batch = SWEEP_BATCH): Promise<void> {
    for (let after = NO_ID; ;) {
      const orphans: Array<{ id: string; instance_id: string; generation: number }> = await this.dataSource.query(
        `SELECT v.id, v.instance_id, v.generation FROM volumes v LEFT JOIN instances i ON i.id = v.instance_id
         WHERE v.status = 'in-use' AND (i.id IS NULL OR i.status = 'DELETING') AND v.id > $1 ORDER BY v.id LIMIT $2`,
        [after, batch],
      );
      for (const o of orphans) await this.release(o);
      if (orphans.length < batch) break;
      after = orphans[orphans.length - 1].id;
    }

    for (let after = NO_ID; ;) {
      const moving = await this.dataSource
        .getRepository(Volume)
        .createQueryBuilder('v')
        .where('v.status IN (:...s)', { s: Object.keys(JOB_OF) })
        .andWhere(`v.updated_at < now() - make_interval(secs => :grace)`, { grace: this.config.LOST_JOB_GRACE_MS / 1000 })
        .andWhere('v.id > :after', { after })
        .orderBy('v.id')
        .limit(batch)
        .getMany();
      for (const row of moving) {
        const job = resourceJob(JOB_OF[row.status]!, row.id, { volumeId: row.id, generation: row.generation });
        if (await ensureJob(this.queue, job)) {
          countRepair('volumes', 'requeued_lost_job');
          this.logger.warn({ volume: row.id, job: job.jobId }, 're-enqueued a lost job');
        }
      }
      if (moving.length < batch) break;
      after = moving[moving.length - 1].id;
    }
  }

  private async release(o: { id: string; instance_id: string; generation: number }): Promise<void> {
    try {
      await this.driver.detach(o.id, o.instance_id);
    } catch (err) {
      // Tried again at the next sweep; the other volumes, and the lost jobs below, are not held up.
      this.logger.error({ volume: o.id, instance: o.instance_id, err: String(err) }, 'cannot release the attachment of a deleted instance');
      return;
    }
    const released = await compareAndSet(this.dataSource.manager, VOLUME_CAS, o.id, 'in-use', 'available', o.generation, {
      instanceId: null,
      attachmentId: null,
      attachedAt: null,
      statusReason: `detached: instance ${o.instance_id} was deleted`,
    });
    if (!released) return;
    countRepair('volumes', 'released_attachment');
    this.logger.log({ volume: o.id, instance: o.instance_id }, 'released the attachment of a deleted instance');
  }
}
