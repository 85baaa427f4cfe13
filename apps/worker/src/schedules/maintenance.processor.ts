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

  /** The scheduled jobs under way in this process, by name (see alone). */
  private readonly running = new Set<string>();

  process(job: Job): Promise<unknown> {
    return this.alone(job.name, () => runHandler(this.handlers, job));
  }

  /**
   * Runs the job `name` unless a run of it is still under way here (a tick,
   * or the start-up sweep), in which case this one is skipped: the queue
   * runs four jobs at once, and a sweep that outlasts its interval (every
   * proxy host's listener looked at in Octavia, a few seconds each) would
   * otherwise have the next ticks sweep beside it, each making the same
   * repairs again. The tick after it looks anyway.
   */
  private async alone(name: string, run: () => Promise<unknown>): Promise<unknown> {
    if (this.running.has(name)) return { skipped: 'the previous run is still under way' };
    this.running.add(name);
    try {
      return await run();
    } finally {
      this.running.delete(name);
    }
  }

  /**
   * Adopt what runs now rather than at the next tick. The schedules are the
   * ScheduleKeeper's; a sweep that fails here (Redis or PostgreSQL down) runs
   * again on them.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.catalog.run();
    // Each as its job (`alone`): a tick that comes meanwhile does not sweep beside it.
    for (const [what, job, sweep] of [
      ['instances', 'instances.reconcile', () => this.instances.sweep()],
      ['databases', 'databases.reconcile', () => this.databases.sweep()],
      ['routes', 'routes.reconcile', () => this.routes.sweep()],
      ['proxy hosts', 'hosts.reconcile', () => this.hosts.sweep()],
      ['clusters', 'clusters.reconcile', () => this.clusters.sweep()],
    ] as const) {
      await this.alone(job, sweep).catch((err) => this.logger.warn({ err: String(err) }, `start-up sweep of ${what} failed; the schedule repeats it`));
    }
  }
}
