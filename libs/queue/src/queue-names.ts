/**
 * Queue names are part of the data in Redis: NEVER rename one. A new name
 * is a new queue, and jobs waiting under the old name would be stranded.
 */
export const QUEUES = {
  instances: 'instances',
  maintenance: 'maintenance',
  volumes: 'volumes',
  databases: 'databases',
  /** Load-balancer listeners with one backend: gateway routes and proxy hosts. */
  routes: 'routes',
  clusters: 'clusters',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
export const ALL_QUEUES: QueueName[] = Object.values(QUEUES);
