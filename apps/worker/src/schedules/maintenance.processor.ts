import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { IdempotencyKeys, pruneChangeEvents } from '@stratus/core';
import { OutboxService, QUEUES } from '@stratus/queue';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { CatalogSync } from '../catalog/catalog.sync';
import { ClustersAutoscaler } from '../clusters/clusters.autoscaler';
import { ClustersReconciler } from '../clusters/clusters.reconciler';
import { DatabasesReconciler } from '../databases/databases.reconciler';
import { HostsReconciler } from '../gateway/hosts.reconciler';
import { RoutesReconciler } from '../gateway/routes.reconciler';
import { InstancesReconciler } from '../instances/instances.reconciler';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { MAINTENANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { VolumesReconciler } from '../volumes/volumes.reconciler';

/** Rows younger than this are left to the direct enqueue that follows their commit. */
const RELAY_MIN_AGE_MS = 1_000;

/**
 * Scheduled work: crons are ordinary jobs on a BullMQ job scheduler (kept in
 * place by the ScheduleKeeper), so one of many workers runs each tick and a
 * dead worker's tick is picked up again.
 */
@Processor(QUEUES.maintenance, MAINTENANCE_WORKER_OPTIONS)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(MaintenanceProcessor.name);
  private readonly handlers: JobHandlers<typeof QUEUES.maintenance> = {
    'outbox.relay': async () => {
      const relayed = await this.outbox.relay(RELAY_MIN_AGE_MS);
      if (Math.random() < 0.01) await this.outbox.prune();
      // Expired idempotency keys: a read ignores them already, this keeps the table from growing (one tick in 100, as the outbox prune).
      if (Math.random() < 0.01) await this.idempotencyKeys.prune();
      // Change events are read within milliseconds of their commit; one tick in 10 removes those past their minute.
      if (Math.random() < 0.1) await pruneChangeEvents(this.dataSource);
      return { relayed };
    },
    'instances.reconcile': () => this.instances.sweep(),
    'catalog.sync': () => this.catalog.run(),
    'databases.reconcile': () => this.databases.sweep(),
    'volumes.reconcile': () => this.volumes.sweep(),
    'routes.reconcile': () => this.routes.sweep(),
    'hosts.reconcile': () => this.hosts.sweep(),
    'clusters.reconcile': () => this.clusters.sweep(),
    'clusters.autoscale': () => this.autoscaler.sweep(),
  };

  constructor(
    private readonly outbox: OutboxService,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly instances: InstancesReconciler,
    private readonly catalog: CatalogSync,
    private readonly databases: DatabasesReconciler,
    private readonly volumes: VolumesReconciler,
    private readonly routes: RoutesReconciler,
    private readonly hosts: HostsReconciler,
    private readonly clusters: ClustersReconciler,
    private readonly autoscaler: ClustersAutoscaler,
    private readonly dataSource: DataSource,
  ) {
    super();
    assertHandlers(QUEUES.maintenance, this.handlers);
  }

  /** The scheduled jobs under way in this process, by name (see process). */
  private readonly running = new Set<string>();

  /**
   * A tick whose previous run of the same job is still under way here is
   * skipped: the queue runs four jobs at once, and a sweep that outlasts its
   * interval (every proxy host's listener looked at in Octavia, a few
   * seconds each) would otherwise have the next ticks sweep beside it, each
   * making the same repairs again. The tick after it looks anyway.
   */
  async process(job: Job): Promise<unknown> {
    if (this.running.has(job.name)) return { skipped: 'the previous run is still under way' };
    this.running.add(job.name);
    try {
      return await runHandler(this.handlers, job);
    } finally {
      this.running.delete(job.name);
    }
  }

  /**
   * Adopt what runs now rather than at the next tick. The schedules are the
   * ScheduleKeeper's; a sweep that fails here (Redis or PostgreSQL down) runs
   * again on them.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.catalog.run();
    for (const [what, sweep] of [
      ['instances', () => this.instances.sweep()],
      ['databases', () => this.databases.sweep()],
      ['routes', () => this.routes.sweep()],
      ['proxy hosts', () => this.hosts.sweep()],
      ['clusters', () => this.clusters.sweep()],
    ] as const) {
      await sweep().catch((err) => this.logger.warn({ err: String(err) }, `start-up sweep of ${what} failed; the schedule repeats it`));
    }
  }
}
