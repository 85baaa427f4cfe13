import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { JobsOf, QUEUES, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';

interface Schedule {
  id: string;
  job: JobsOf<typeof QUEUES.maintenance>;
  everyMs: number;
}

/** Finished ticks are history; a few are kept for the dashboard. */
const KEEP = { removeOnComplete: { count: 50 }, removeOnFail: { count: 200 } };

/**
 * The maintenance schedules live in Redis as BullMQ job schedulers, so a
 * Redis that comes back empty (a restart without persistence, a FLUSHALL, a
 * failover) has none, and then neither the reconcilers nor the outbox relay
 * would ever run again. The keeper cannot be a schedule itself: it is a plain
 * timer in every worker that puts back whichever schedule is missing, once
 * per reconcile period. Upserting is idempotent, so workers racing to do it
 * leave one of each.
 */
@Injectable()
export class ScheduleKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ScheduleKeeper.name);
  private readonly schedules: Schedule[];
  private readonly checkEveryMs: number;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    config: AppConfig,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
  ) {
    this.schedules = [
      { id: 'outbox-relay', job: 'outbox.relay', everyMs: config.OUTBOX_RELAY_INTERVAL_MS },
      { id: 'instances-reconcile', job: 'instances.reconcile', everyMs: config.RECONCILE_INTERVAL_MS },
      { id: 'volumes-reconcile', job: 'volumes.reconcile', everyMs: config.RECONCILE_INTERVAL_MS },
      { id: 'databases-reconcile', job: 'databases.reconcile', everyMs: config.RECONCILE_INTERVAL_MS },
      { id: 'routes-reconcile', job: 'routes.reconcile', everyMs: config.RECONCILE_INTERVAL_MS },
      { id: 'hosts-reconcile', job: 'hosts.reconcile', everyMs: config.RECONCILE_INTERVAL_MS },
      // Faster than the rest: a member lost without a notice (another worker's process, a missed watch) is replaced within seconds.
      { id: 'clusters-reconcile', job: 'clusters.reconcile', everyMs: config.CLUSTER_RECONCILE_INTERVAL_MS },
      { id: 'catalog-sync', job: 'catalog.sync', everyMs: 10 * 60_000 },
    ];
    this.checkEveryMs = config.RECONCILE_INTERVAL_MS;
  }

  /**
   * The first pass upserts every schedule, so a changed interval takes
   * effect; it is not awaited, so a worker starts (and consumes once Redis
   * answers) even while Redis does not.
   */
  onApplicationBootstrap(): void {
    void this.check(true);
    this.timer = setInterval(() => void this.check(), this.checkEveryMs);
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Upserts every schedule Redis does not have (or all of them); returns the ids it wrote. */
  async check(all = false): Promise<string[]> {
    if (this.checking) return [];
    this.checking = true;
    const restored: string[] = [];
    try {
      for (const s of this.schedules) {
        if (!all && (await withRedisDeadline(`read schedule ${s.id}`, this.queue.getJobScheduler(s.id)))) continue;
        await withRedisDeadline(`upsert schedule ${s.id}`, this.queue.upsertJobScheduler(s.id, { every: s.everyMs }, { name: s.job, opts: KEEP }));
        restored.push(s.id);
      }
      if (restored.length && !all) this.logger.warn({ schedules: restored }, 're-created schedules Redis had lost');
    } catch (err) {
      // Redis is down or slow: the next tick tries again.
      this.logger.warn({ err: String(err) }, 'cannot check the schedules');
    } finally {
      this.checking = false;
    }
    return restored;
  }
}
