import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, compareAndSet, Flavor, Instance, INSTANCE_CAS, notifyEdge, releaseAddress } from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { withDriverErrors } from '../jobs/driver-errors';
import { delayWhileNotReady, NotReadyYet, RecheckDelays } from '../jobs/not-ready';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { InstancesReconciler } from './instances.reconciler';
import { PacketFilterSync } from '../security-groups/packet-filter.sync';

/** A booting instance is looked at again after a quarter of its job's age, between 100 ms and 2 s. */
const BOOT_RECHECK: RecheckDelays = { share: 0.25, minMs: 100, maxMs: 2_000 };

/**
 * Builds and tears down instances on the compute driver, one job per change
 * of desired state. A create does not wait for the boot: the driver starts
 * it, and while the instance boots the job goes back to the delayed set
 * (BullMQ DelayedError, as volume attach does) and comes back to look
 * again, so a worker slot is never held by a booting server.
 */
@Processor(QUEUES.instances, INSTANCE_WORKER_OPTIONS)
export class InstancesProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(InstancesProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.instances> = {
    'instance.create': ({ instanceId, generation }) => this.create(instanceId, generation),
    'instance.delete': ({ instanceId, generation }) => this.delete(instanceId, generation),
  };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMPUTE_DRIVER) private readonly driver: ComputeDriver,
    private readonly reconciler: InstancesReconciler,
    private readonly config: AppConfig,
    private readonly packetFilter: PacketFilterSync,
  ) {
    super();
    assertHandlers(QUEUES.instances, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WORKER_CONCURRENCY;
  }

  process(job: Job, token?: string): Promise<unknown> {
    return delayWhileNotReady(job, token, BOOT_RECHECK, () => runHandler(this.handlers, job));
  }

  /** Attempts exhausted on a retryable error: the instance will not build. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job, err: Error): Promise<void> {
    if (job.name !== 'instance.create' || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    const { instanceId, generation } = job.data;
    await compareAndSet(this.dataSource.manager, INSTANCE_CAS, instanceId, 'BUILD', 'ERROR', generation, {
      statusReason: `build failed after ${job.attemptsMade} attempts: ${err.message}`,
    });
  }

  private async create(id: string, generation: number): Promise<void> {
    const row = await this.dataSource.getRepository(Instance).findOneBy({ id });
    // Duplicate or late delivery: the row has moved on, nothing to do.
    if (!row || row.status !== 'BUILD' || row.generation !== generation) return;
    const flavor = await this.dataSource.getRepository(Flavor).findOneByOrFail({ id: row.flavorId });
    // Its first packets meet the boundary: a table is loaded before anything boots.
    await this.packetFilter.loaded();
    const observed = await withDriverErrors(
      () =>
        this.driver.create({
          id,
          imageId: row.imageId,
          address: row.address,
          port: row.port,
          userData: row.userData,
          flavor: { vcpus: flavor.vcpus, ramMb: flavor.ramMb },
        }),
      (reason) => compareAndSet(this.dataSource.manager, INSTANCE_CAS, id, 'BUILD', 'ERROR', generation, { statusReason: reason }),
    );
    if (!observed.ready) throw new NotReadyYet(id);
    // Its uid is known now: ACTIVE means its groups are in force.
    await this.packetFilter.sync();
    // One transaction, so nobody sees ACTIVE without its limits. The limits are
    // merged in SQL, not copied from `row`: metadata may have changed during
    // the build (proxy hosts, update-dns).
    const moved = await this.dataSource.transaction(async (manager) => {
      const ok = await compareAndSet(manager, INSTANCE_CAS, id, 'BUILD', 'ACTIVE', generation, { statusReason: null });
      if (ok) {
        await manager.query(`UPDATE instances SET metadata = metadata || jsonb_build_object('resourceLimits', $2::text) WHERE id = $1`, [id, observed.limits]);
      }
      return ok;
    });
    if (moved) this.logger.log({ instance: id, limits: observed.limits }, 'instance active');
    else await this.reconciler.removeIfUnwanted(id);
  }

  private async delete(id: string, generation: number): Promise<void> {
    const row = await this.dataSource.getRepository(Instance).findOneBy({ id });
    if (row && (row.status !== 'DELETING' || row.generation !== generation)) return;
    await this.driver.delete(id);
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(Instance, { id, status: 'DELETING' });
      // Its proxy hosts went with it (foreign key cascade): the edge drops them now.
      await notifyEdge(manager, 'hosts');
      await releaseAddress(manager, id);
    });
    await this.packetFilter.sync();
    this.logger.log({ instance: id }, 'instance deleted');
  }
}
