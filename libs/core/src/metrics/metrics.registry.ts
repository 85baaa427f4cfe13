import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's one metric registry. Every metric is named here or beside
 * what it measures, registered on this registry and nowhere else, so the api
 * and the worker each expose exactly what they measure. Labels take values
 * from closed sets (kinds, statuses, queue and job names, route patterns):
 * never an id, a name a client chose, a URL or a credential.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'stratus_' });

/**
 * Seconds from a resource's create to the end of its create step: the first
 * move out of its creation status (BUILD, provisioning, creating) to anything
 * but deletion. `outcome` is the status it moved to (ACTIVE, ready, error...).
 * Buckets from a cache's ~0.1 s to an instance's build deadline.
 */
export const createToSettledSeconds = new Histogram({
  name: 'stratus_resource_create_to_settled_seconds',
  help: 'Time from create to the first status past the creation one, by kind and outcome',
  labelNames: ['kind', 'outcome'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900],
  registers: [metricsRegistry],
});

/** What a reconciler put right, by reconciler and what it did. */
export const reconcilerRepairs = new Counter({
  name: 'stratus_reconciler_repairs_total',
  help: 'Repairs made by the reconcilers, by reconciler and action',
  labelNames: ['reconciler', 'action'] as const,
  registers: [metricsRegistry],
});

/** The reconcilers and what each one repairs: label values from a closed set. */
export type ReconcilerRepair =
  | ['instances', 'requeued_lost_job' | 'failed_past_deadline' | 'observed_stopped' | 'observed_running']
  | ['databases', 'requeued_lost_job' | 'failed_past_deadline' | 'restarted_server' | 'failed_restart']
  | ['volumes', 'requeued_lost_job' | 'released_attachment']
  | ['routes', 'removed_listener' | 'listener_status_changed']
  | ['hosts', 'removed_listener' | 'remade_listener'];

export function countRepair(...[reconciler, action]: ReconcilerRepair): void {
  reconcilerRepairs.inc({ reconciler, action });
}
