import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { insertTogetherIn, JobOutbox, OutboxEntry } from '@stratus/core';
import { Queue } from 'bullmq';
import { DataSource, EntityManager, In } from 'typeorm';
import { JOB_QUEUE, JobName, JobPayload, resourceJobId } from './job-catalog';
import { withRedisDeadline } from './redis-deadline';

export interface PendingJob<N extends JobName = JobName> {
  name: N;
  payload: JobPayload<N>;
  jobId: string;
  /** BullMQ priority (OutboxEntry.priority); none when absent. */
  priority?: number;
}

/**
 * BullMQ's lowest priority: a rank past it is queued with it (still behind
 * every lower rank, FIFO among equals).
 */
export const LOWEST_PRIORITY = 2 ** 21;

/** A job for one change (generation) of one resource; its id makes every enqueue of it idempotent. */
export function resourceJob<N extends JobName>(name: N, resourceId: string | number, payload: JobPayload<N> & { generation: number }, priority?: number): PendingJob<N> {
  return { name, payload, jobId: resourceJobId(name, resourceId, payload.generation), ...(priority ? { priority } : {}) };
}

/** The outbox row of a job: name, id, payload (ids only) and rank. */
export function outboxEntryOf(job: PendingJob): Pick<OutboxEntry, 'jobName' | 'jobId' | 'payload' | 'priority'> {
  return { jobName: job.name, jobId: job.jobId, payload: job.payload, priority: job.priority ? Math.min(job.priority, LOWEST_PRIORITY) : null };
}

/**
 * The transactional outbox: `write` inside the resource's transaction,
 * `dispatch` after commit, `relay` on a schedule for whatever dispatch missed.
 */
@Injectable()
export class OutboxService implements JobOutbox {
  private readonly logger = new Logger(OutboxService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** One INSERT from the entity's metadata (insertTogetherIn), not TypeORM's save: every create and change writes one. */
  async write(manager: EntityManager, job: PendingJob): Promise<OutboxEntry> {
    const [entry] = await insertTogetherIn(manager, [{ entity: OutboxEntry, values: outboxEntryOf(job) }]);
    return entry;
  }

  /** JobOutbox: what libs/core's resource lives write, by name, resource and payload. */
  writeJob<N extends JobName>(
    manager: EntityManager,
    name: N,
    resourceId: string | number,
    payload: JobPayload<N> & { generation: number },
    priority?: number,
  ): Promise<OutboxEntry> {
    return this.write(manager, resourceJob(name, resourceId, payload, priority));
  }

  jobEntry<N extends JobName>(
    name: N,
    resourceId: string | number,
    payload: JobPayload<N> & { generation: number },
    priority?: number,
  ): Pick<OutboxEntry, 'jobName' | 'jobId' | 'payload' | 'priority'> {
    return outboxEntryOf(resourceJob(name, resourceId, payload, priority));
  }

  /** Entries dispatched since the last flush: sent together once the current turn of the event loop ends. */
  private gathered: OutboxEntry[] = [];

  /**
   * Best effort, and not awaited by the caller: the row and its outbox entry
   * are committed, which is all a request needs, so a slow or absent Redis
   * never holds the response. Whatever this misses the relay enqueues.
   *
   * Entries dispatched in the same turn of the event loop (creates whose
   * commits came back together) go out as one batch: one Redis round trip per
   * queue and one UPDATE for all of them, not one of each per create. A lone
   * create waits for nothing but the end of its turn.
   */
  dispatch(entries: OutboxEntry[]): void {
    if (entries.length === 0) return;
    if (this.gathered.length === 0) setImmediate(() => this.flush());
    this.gathered.push(...entries);
  }

  private flush(): void {
    const entries = this.gathered;
    this.gathered = [];
    void this.enqueue(entries)
      .then(() => this.dataSource.getRepository(OutboxEntry).update({ id: In(entries.map((e) => e.id)) }, { dispatchedAt: new Date() }))
      .catch((err) => {
        this.logger.warn({ err: String(err), entries: entries.map((e) => e.jobId) }, 'direct enqueue failed; the relay will retry');
      });
  }

  /**
   * Enqueues pending rows older than `minAgeMs`, a batch at a time (one
   * Redis round trip per queue each), until none is left or `maxBatches`
   * ran; returns how many. A backlog (Redis was away) drains in one run, and
   * no run holds more than a batch of rows locked.
   */
  async relay(minAgeMs: number, batch = 500, maxBatches = 20): Promise<number> {
    let relayed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await this.relayBatch(minAgeMs, batch);
      relayed += n;
      if (n < batch) break;
    }
    return relayed;
  }

  private relayBatch(minAgeMs: number, batch: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const entries: OutboxEntry[] = await manager
        .getRepository(OutboxEntry)
        .createQueryBuilder('o')
        .where('o.dispatched_at IS NULL')
        .andWhere(`o.created_at < now() - make_interval(secs => :age)`, { age: minAgeMs / 1000 })
        .orderBy('o.id')
        .limit(batch)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      if (entries.length === 0) return 0;
      await this.enqueue(entries);
      await manager.getRepository(OutboxEntry).update({ id: In(entries.map((e) => e.id)) }, { dispatchedAt: new Date() });
      return entries.length;
    });
  }

  /** Dispatched rows are history; keep a day of it. */
  async prune(olderThanMs = 24 * 3600_000): Promise<void> {
    await this.dataSource.query(`DELETE FROM outbox WHERE dispatched_at IS NOT NULL AND dispatched_at < now() - make_interval(secs => $1)`, [olderThanMs / 1000]);
  }

  /** One addBulk per queue: a job id already queued is skipped by BullMQ, as with add. */
  private async enqueue(entries: OutboxEntry[]): Promise<void> {
    const byQueue = new Map<string, OutboxEntry[]>();
    for (const e of entries) {
      const name = JOB_QUEUE[e.jobName as JobName];
      const batch = byQueue.get(name);
      if (batch) batch.push(e);
      else byQueue.set(name, [e]);
    }
    await Promise.all(
      [...byQueue].map(([name, batch]) => {
        const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
        // The rank rides with the row, so the relay queues a job exactly as the direct enqueue would have.
        const jobs = batch.map((e) => ({ name: e.jobName, data: e.payload, opts: { jobId: e.jobId, ...(e.priority ? { priority: e.priority } : {}) } }));
        return withRedisDeadline(`enqueue ${batch.length} jobs on ${name}`, queue.addBulk(jobs));
      }),
    );
  }
}
