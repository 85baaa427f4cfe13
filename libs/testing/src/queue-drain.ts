import { OutboxEntry } from '@stratus/core';
import { JOB_QUEUE, JobName, QUEUES } from '@stratus/queue';
import { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';

/** The queues of resource jobs (creates, deletes, attaches): what a test usually waits on. */
export const RESOURCE_QUEUES = [QUEUES.instances, QUEUES.volumes, QUEUES.databases];

/** States a job is in while it still has work to do (a retry's backoff and a booting instance's recheck are `delayed`). */
const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;

export interface DrainOptions {
  /** Where the jobs come from: its outbox rows not yet enqueued count as pending (a create's enqueue after commit is not awaited). */
  dataSource?: DataSource;
  /** Generous: a retry's backoff is a pending job too, and the machine may be loaded. */
  timeoutMs?: number;
  intervalMs?: number;
}

interface Snapshot {
  /** What is still to run, by queue (and `outbox`), with a few job ids; empty when drained. */
  pending: string[];
  /** Changes whenever a job finishes: a drain must hold across two looks with nothing finishing between them. */
  finished: string;
}

/**
 * Waits until `queues` have nothing waiting, active, delayed or prioritized,
 * and (with `dataSource`) the outbox holds no job of theirs still to be
 * enqueued; fails at the deadline naming what was still there. A job that
 * completes may queue the next one (a volume created with an instance
 * queues its attach), so the empty state must be seen twice in a row with
 * no job finishing between the two looks. A job scheduler's next tick (the
 * maintenance queue always has one delayed) is not pending work.
 */
export async function waitForDrain(queues: Queue[], { dataSource, timeoutMs = 60_000, intervalMs = 50 }: DrainOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let previous: Snapshot | null = null;
  for (;;) {
    const now = await snapshot(queues, dataSource);
    if (now.pending.length === 0 && previous?.pending.length === 0 && previous.finished === now.finished) return;
    if (Date.now() > deadline) {
      throw new Error(`queues not drained after ${timeoutMs} ms: ${now.pending.join('; ') || 'jobs kept finishing'}`);
    }
    previous = now;
    await sleep(intervalMs);
  }
}

async function snapshot(queues: Queue[], dataSource: DataSource | undefined): Promise<Snapshot> {
  const pending: string[] = [];
  // The outbox first: a row marked dispatched after this look had its job enqueued before it, so the queues' look below sees it.
  if (dataSource) {
    const names = new Set(queues.map((q) => q.name));
    const rows = await dataSource.getRepository(OutboxEntry).createQueryBuilder('o').where('o.dispatched_at IS NULL').orderBy('o.id').getMany();
    const ours = rows.filter((r) => names.has(JOB_QUEUE[r.jobName as JobName]));
    if (ours.length) pending.push(`outbox: ${ours.length} not enqueued (${ids(ours.map((r) => r.jobId))})`);
  }
  const finished: number[] = [];
  for (const queue of queues) {
    const counts = await queue.getJobCounts(...PENDING_STATES, 'completed', 'failed');
    finished.push(counts.completed, counts.failed);
    for (const state of PENDING_STATES) {
      if (!counts[state]) continue;
      // A job scheduler's next tick waits in `delayed` for good; it is not work left.
      const jobs = (await queue.getJobs([state], 0, 100)).filter((j) => !(state === 'delayed' && j.repeatJobKey));
      if (jobs.length) pending.push(`${queue.name}: ${state === 'delayed' ? jobs.length : counts[state]} ${state} (${ids(jobs.map((j) => j.id!))})`);
    }
  }
  return { pending, finished: finished.join(',') };
}

function ids(list: string[]): string {
  return list.length > 3 ? `${list.slice(0, 3).join(', ')}, ...` : list.join(', ');
}
