import { JobsOptions } from 'bullmq';
import { QUEUES, QueueName } from './queue-names';

/**
 * Every job the system runs, with its payload. Payloads carry ids only: the
 * worker reloads the row, which is the truth. Job names, like queue names,
 * are never renamed.
 */
export interface JobCatalog {
  'instance.create': { instanceId: string; generation: number };
  'instance.delete': { instanceId: string; generation: number };
  'instances.reconcile': Record<string, never>;
  'catalog.sync': Record<string, never>;
  'outbox.relay': Record<string, never>;
  /** One job per managed database server (postgres, cache, analytics); the engine is on the row. */
  'database.create': { databaseId: number; generation: number };
  'database.delete': { databaseId: number; generation: number };
  /** A reset-password's new verifier made the server's (the row holds it; the job only its id). */
  'database.rotate': { databaseId: number; generation: number };
  'databases.reconcile': Record<string, never>;
  'volume.create': { volumeId: string; generation: number };
  'volume.attach': { volumeId: string; generation: number };
  'volume.detach': { volumeId: string; generation: number };
  'volume.delete': { volumeId: string; generation: number };
  'volumes.reconcile': Record<string, never>;
  /** A gateway route's listener made real; routes never change, so their generation is always 1. */
  'route.apply': { routeId: string; generation: number };
  /** Written by a trigger on every removal of a route (migration RouteListeners): keep name, id and payload as it writes them. */
  'route.delete': { routeId: string; generation: number };
  'routes.reconcile': Record<string, never>;
  /** A proxy host's listener made as the proxy host now asks; a new generation for each change of it. */
  'host.apply': { proxyHostId: string; generation: number };
  /** Written by a trigger on every removal of a proxy host (migration HostListeners): keep name, id and payload as it writes them. */
  'host.delete': { proxyHostId: string; generation: number };
  'hosts.reconcile': Record<string, never>;
  /** Brings a cluster to its desired members, one at a time (build and heal alike); a new generation for each change. */
  'cluster.converge': { clusterId: string; generation: number };
  'cluster.delete': { clusterId: string; generation: number };
  'clusters.reconcile': Record<string, never>;
}

export type JobName = keyof JobCatalog;
export type JobPayload<N extends JobName> = JobCatalog[N];

export const JOB_QUEUE = {
  'instance.create': QUEUES.instances,
  'instance.delete': QUEUES.instances,
  'instances.reconcile': QUEUES.maintenance,
  'catalog.sync': QUEUES.maintenance,
  'outbox.relay': QUEUES.maintenance,
  'database.create': QUEUES.databases,
  'database.delete': QUEUES.databases,
  'database.rotate': QUEUES.databases,
  'databases.reconcile': QUEUES.maintenance,
  'volume.create': QUEUES.volumes,
  'volume.attach': QUEUES.volumes,
  'volume.detach': QUEUES.volumes,
  'volume.delete': QUEUES.volumes,
  'volumes.reconcile': QUEUES.maintenance,
  'route.apply': QUEUES.routes,
  'route.delete': QUEUES.routes,
  'routes.reconcile': QUEUES.maintenance,
  // The routes queue carries every one-backend listener job: gateway routes' and proxy hosts'.
  'host.apply': QUEUES.routes,
  'host.delete': QUEUES.routes,
  'hosts.reconcile': QUEUES.maintenance,
  'cluster.converge': QUEUES.clusters,
  'cluster.delete': QUEUES.clusters,
  'clusters.reconcile': QUEUES.maintenance,
} as const satisfies { readonly [N in JobName]: QueueName };

export type JobsOf<Q extends QueueName> = { [N in JobName]: (typeof JOB_QUEUE)[N] extends Q ? N : never }[JobName];

export function jobsOfQueue(queue: QueueName): JobName[] {
  return (Object.keys(JOB_QUEUE) as JobName[]).filter((n) => JOB_QUEUE[n] === queue);
}

/**
 * Deterministic job id: the same change of the same resource is one job, so a
 * duplicate enqueue (direct path and outbox relay racing) is a no-op.
 */
export function resourceJobId(name: JobName, resourceId: string | number, generation: number): string {
  return `${name.replace('.', '-')}-${resourceId}-g${generation}`;
}

/**
 * Finished jobs are kept long enough to dedupe late duplicates and to show on
 * the dashboard, and no longer.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 5000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
};
