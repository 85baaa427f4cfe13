import type { JobName, JobPayload } from '@stratus/queue';
import { EntityManager } from 'typeorm';
import { OutboxEntry } from './outbox.entity';

/** A job for one change (generation) of one resource, as the queue's job catalog types it. */
export type ResourceJobPayload<N extends JobName> = JobPayload<N> & { generation: number };

/**
 * The transactional outbox as a resource's life uses it. libs/queue
 * implements it (OutboxService) and depends on libs/core, so core names the
 * jobs by the catalog's types only and never loads libs/queue itself.
 */
export abstract class JobOutbox {
  /** Inside the resource's transaction: the outbox row of the job; `priority` ranks it in its queue (OutboxEntry.priority). */
  abstract writeJob<N extends JobName>(manager: EntityManager, name: N, resourceId: string | number, payload: ResourceJobPayload<N>, priority?: number): Promise<OutboxEntry>;

  /** The columns of that row, for a create that inserts it in its own statement (insertTogether). */
  abstract jobEntry<N extends JobName>(
    name: N,
    resourceId: string | number,
    payload: ResourceJobPayload<N>,
    priority?: number,
  ): Pick<OutboxEntry, 'jobName' | 'jobId' | 'payload' | 'priority'>;

  /** After commit, not awaited: enqueue now what the relay would otherwise enqueue later. */
  abstract dispatch(entries: OutboxEntry[]): void;
}
