import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { CasPatch, compareAndSet, Instance, Volume, VOLUME_CAS } from '@stratus/core';
import { DriverError, VOLUME_DRIVER, VolumeDriver } from '@stratus/providers';
import { OutboxService, QUEUES, resourceJob } from '@stratus/queue';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { OnFinalFailure } from '../jobs/final-failure';
import { withDriverErrors } from '../jobs/driver-errors';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';

/** How often an attach looks again at an instance still being built. */
const BUILD_WAIT_MS = 1_000;

/** The attach's instance is still being built: the job waits for it. */
class InstanceBuilding extends Error {}

/** Makes volumes real on the volume driver: create, attach, detach, delete, one job per change. */
@Processor(QUEUES.volumes, { ...INSTANCE_WORKER_OPTIONS, concurrency: 8 })
export class VolumesProcessor extends WorkerHost {
  private readonly logger = new Logger(VolumesProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.volumes> = {
    'volume.create': ({ volumeId, generation }) => this.create(volumeId, generation),
    'volume.attach': ({ volumeId, generation }) => this.attach(volumeId, generation),
    'volume.detach': ({ volumeId, generation }) => this.detach(volumeId, generation),
    'volume.delete': ({ volumeId, generation }) => this.delete(volumeId, generation),
  };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(VOLUME_DRIVER) private readonly driver: VolumeDriver,
    private readonly outbox: OutboxService,
  ) {
    super();
    assertHandlers(QUEUES.volumes, this.handlers);
  }

  async process(job: Job, token?: string): Promise<unknown> {
    try {
      return await runHandler(this.handlers, job, token);
    } catch (err) {
      if (!(err instanceof InstanceBuilding) || !token) throw err;
      // BullMQ's way to wait without spending an attempt: the job is delayed and comes back.
      await job.moveToDelayed(Date.now() + BUILD_WAIT_MS, token);
      throw new DelayedError();
    }
  }

  /** Attempts exhausted on a retryable error. */
  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    const { volumeId, generation } = job.data;
    const reason = `${job.name} failed after ${job.attemptsMade} attempts: ${err.message}`;
    if (job.name === 'volume.create') await this.cas(volumeId, 'creating', 'error', generation, { statusReason: reason });
    if (job.name === 'volume.attach') await this.attachFailed(volumeId, generation, reason);
    if (job.name === 'volume.detach') await this.detachFailed(volumeId, generation, reason);
  }

  private async create(id: string, generation: number): Promise<void> {
    const row = await this.load(id);
    if (!row || row.status !== 'creating' || row.generation !== generation) return;
    await withDriverErrors(
      () => this.driver.create(id, row.sizeGb),
      (reason) => this.cas(id, 'creating', 'error', generation, { statusReason: reason }),
    );
    if (!row.instanceId) {
      await this.cas(id, 'creating', 'available', generation, { statusReason: null });
      return;
    }
    // Created with an instance: attach it next, as a job of its own.
    const next = generation + 1;
    const entry = await this.dataSource.transaction(async (m) => {
      const moved = await compareAndSet(m, VOLUME_CAS, id, 'creating', 'attaching', generation, { generation: next });
      return moved ? this.outbox.write(m, resourceJob('volume.attach', id, { volumeId: id, generation: next })) : null;
    });
    if (entry) this.outbox.dispatch([entry]);
  }

  private async attach(id: string, generation: number): Promise<void> {
    const row = await this.load(id);
    if (!row || row.status !== 'attaching' || row.generation !== generation || !row.instanceId) return;
    const instance = await this.dataSource.getRepository(Instance).findOneBy({ id: row.instanceId });
    if (!instance || instance.status === 'DELETING' || instance.status === 'ERROR') {
      await this.attachFailed(id, generation, `instance ${row.instanceId} is ${instance ? instance.status : 'gone'}`);
      return;
    }
    await withDriverErrors(
      () =>
        this.driver.attach(id, row.instanceId!).catch((err) => {
          // Its home is laid out when it first boots, however long it waits for a worker: until
          // then the attach waits too (its attempts would run out in about two minutes).
          if (instance.status === 'BUILD' && err instanceof DriverError && !err.terminal) throw new InstanceBuilding(err.message);
          throw err;
        }),
      (reason) => this.attachFailed(id, generation, reason),
    );
    await this.cas(id, 'attaching', 'in-use', generation, { statusReason: null, attachedAt: new Date() });
  }

  private async detach(id: string, generation: number): Promise<void> {
    const row = await this.load(id);
    if (!row || row.status !== 'detaching' || row.generation !== generation) return;
    await withDriverErrors(
      () => this.driver.detach(id, row.instanceId),
      (reason) => this.detachFailed(id, generation, reason),
    );
    await this.cas(id, 'detaching', 'available', generation, { instanceId: null, attachmentId: null, attachedAt: null, statusReason: null });
  }

  private async delete(id: string, generation: number): Promise<void> {
    const row = await this.load(id);
    if (row && (row.status !== 'deleting' || row.generation !== generation)) return;
    await this.driver.delete(id);
    await this.dataSource.getRepository(Volume).delete({ id, status: 'deleting' });
    this.logger.log({ volume: id }, 'volume deleted');
  }

  /** Still attached (the instance keeps its link to it): back to in-use, with the reason, to be detached again. */
  private detachFailed(id: string, generation: number, reason: string) {
    return this.cas(id, 'detaching', 'in-use', generation, { statusReason: `detach failed: ${reason}` });
  }

  /** The volume is fine, just not attached: back to available, with the reason. */
  private async attachFailed(id: string, generation: number, reason: string): Promise<void> {
    const row = await this.load(id);
    if (row?.instanceId) await this.driver.detach(id, row.instanceId).catch(() => undefined);
    await this.cas(id, 'attaching', 'available', generation, {
      statusReason: `attach failed: ${reason}`,
      instanceId: null,
      attachmentId: null,
    });
  }

  private load(id: string): Promise<Volume | null> {
    return this.dataSource.getRepository(Volume).findOneBy({ id });
  }

  private cas(id: string, from: Volume['status'], to: Volume['status'], generation: number, patch: CasPatch<Volume>) {
    return compareAndSet(this.dataSource.manager, VOLUME_CAS, id, from, to, generation, patch);
  }
}
