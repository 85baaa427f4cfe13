import { Processor, WorkerHost } from '@nestjs/bullmq';
import { OnApplicationBootstrap } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { AppConfig } from '@stratus/core';
import { OutboxService, QUEUES } from '@stratus/queue';
import { Job, Queue } from 'bullmq';
import { CatalogSync } from '../catalog/catalog.sync';
import { DatabasesReconciler } from '../databases/databases.reconciler';
import { InstancesReconciler } from '../instances/instances.reconciler';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { MAINTENANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { VolumesReconciler } from '../volumes/volumes.reconciler';

/** Rows younger than this are left to the direct enqueue that follows their commit. */
const RELAY_MIN_AGE_MS = 1_000;

/**
 * Scheduled work: crons are ordinary jobs on a BullMQ job scheduler, so one
 * of many workers runs each tick and a dead worker's tick is picked up again.
 */
@Processor(QUEUES.maintenance, MAINTENANCE_WORKER_OPTIONS)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<typeof QUEUES.maintenance> = {
    'outbox.relay': async () => {
      const relayed = await this.outbox.relay(RELAY_MIN_AGE_MS);
      if (Math.random() < 0.01) await this.outbox.prune();
      return { relayed };
    },
    'instances.reconcile': () => this.instances.sweep(),
    'catalog.sync': () => this.catalog.run(),
    'databases.reconcile': () => this.databases.sweep(),
    'volumes.reconcile': () => this.volumes.sweep(),
  };

  constructor(
    private readonly outbox: OutboxService,
    private readonly instances: InstancesReconciler,
    private readonly catalog: CatalogSync,
    private readonly databases: DatabasesReconciler,
    private readonly volumes: VolumesReconciler,
    private readonly config: AppConfig,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
  ) {
    super();
    assertHandlers(QUEUES.maintenance, this.handlers);
  }

  process(job: Job): Promise<unknown> {
    return runHandler(this.handlers, job);
  }

  /** Schedules are upserted by every worker at start; BullMQ keeps one of each. */
  async onApplicationBootstrap(): Promise<void> {
    const keep = { removeOnComplete: { count: 50 }, removeOnFail: { count: 200 } };
    await this.queue.upsertJobScheduler('outbox-relay', { every: this.config.OUTBOX_RELAY_INTERVAL_MS }, { name: 'outbox.relay', opts: keep });
    await this.queue.upsertJobScheduler('instances-reconcile', { every: this.config.RECONCILE_INTERVAL_MS }, { name: 'instances.reconcile', opts: keep });
    await this.queue.upsertJobScheduler('volumes-reconcile', { every: this.config.RECONCILE_INTERVAL_MS }, { name: 'volumes.reconcile', opts: keep });
    await this.queue.upsertJobScheduler('databases-reconcile', { every: this.config.RECONCILE_INTERVAL_MS }, { name: 'databases.reconcile', opts: keep });
    await this.queue.upsertJobScheduler('catalog-sync', { every: 10 * 60_000 }, { name: 'catalog.sync', opts: keep });
    // Adopt what runs now rather than at the next tick.
    await this.catalog.run();
    await this.instances.sweep();
    await this.databases.sweep();
  }
}
