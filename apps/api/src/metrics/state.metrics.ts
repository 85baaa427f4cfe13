import { CLUSTER_STATUSES, DATABASE_STATUSES, ENGINE_KINDS, INSTANCE_STATUSES, metricsRegistry, VOLUME_STATUSES } from '@stratus/core';
import { QueueName, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';

/** The queue states worth watching: a backlog (waiting, delayed), work in hand, and jobs that gave up. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * Each scrape asks PostgreSQL once, whoever scrapes: answers younger than
 * this are reused, so two Prometheus servers (or a scraper and an operator's
 * curl) cost one grouped count, not one each.
 */
const RESOURCE_COUNTS_TTL_MS = 5_000;

/** Every status of every kind is reported, 0 included, so an alert on "no ERROR" is not an alert on a missing series. */
const KIND_STATUSES: Record<string, readonly string[]> = {
  instance: INSTANCE_STATUSES,
  volume: VOLUME_STATUSES,
  cluster: CLUSTER_STATUSES,
  ...Object.fromEntries(Object.values(ENGINE_KINDS).map((kind) => [kind, DATABASE_STATUSES])),
  // Routes and proxy hosts are active from their create on (DESIGN.md 5): a count, not a status.
  gateway_route: ['active'],
  proxy_host: ['active'],
};

/**
 * One statement, one round trip, grouped counts per kind. Each count reads
 * the table (an index-only scan where one fits), which is why it runs at
 * scrape time at most every RESOURCE_COUNTS_TTL_MS, never per request.
 */
const RESOURCE_COUNTS_SQL = `
  SELECT 'instance' AS kind, status, count(*)::int AS n FROM instances GROUP BY status
  UNION ALL SELECT engine, status, count(*)::int FROM managed_databases GROUP BY engine, status
  UNION ALL SELECT 'volume', status, count(*)::int FROM volumes GROUP BY status
  UNION ALL SELECT 'cluster', status, count(*)::int FROM clusters GROUP BY status
  UNION ALL SELECT 'gateway_route', 'active', count(*)::int FROM gateway_routes
  UNION ALL SELECT 'proxy_host', 'active', count(*)::int FROM proxy_hosts`;

/**
 * Gauges of what PostgreSQL and Redis hold, read when scraped: resources by
 * kind and status, and each queue's jobs by state. They describe the whole
 * installation, so the api reports them and the worker does not; with
 * several api processes each reports the same numbers (aggregate with max).
 * Registered again when called again (a second app in one process).
 */
export function registerStateGauges(dataSource: DataSource, queues: ReadonlyMap<QueueName, Queue>): void {
  for (const name of ['stratus_resources', 'stratus_queue_jobs']) metricsRegistry.removeSingleMetric(name);

  let cached: { at: number; rows: Promise<Array<{ kind: string; status: string; n: number }>> } | undefined;
  const resourceCounts = () => {
    if (!cached || Date.now() - cached.at > RESOURCE_COUNTS_TTL_MS) {
      const rows = dataSource.query(RESOURCE_COUNTS_SQL);
      cached = { at: Date.now(), rows };
      // A failed read is not kept: the next scrape asks again.
      rows.catch(() => (cached = undefined));
    }
    return cached.rows;
  };

  new Gauge({
    name: 'stratus_resources',
    help: 'Resources by kind and status, as PostgreSQL holds them',
    labelNames: ['kind', 'status'] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      // PostgreSQL down: the scrape still answers (with the process's own metrics), without these series.
      const rows = await resourceCounts().catch(() => null);
      if (!rows) return;
      for (const [kind, statuses] of Object.entries(KIND_STATUSES)) for (const status of statuses) this.set({ kind, status }, 0);
      // Added, not set: two engines (mariadb, mysql) are one collection.
      for (const row of rows) this.inc({ kind: ENGINE_KINDS[row.kind as keyof typeof ENGINE_KINDS] ?? row.kind, status: row.status }, row.n);
    },
  });

  new Gauge({
    name: 'stratus_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, delayed, failed)',
    labelNames: ['queue', 'state'] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await Promise.all(
        [...queues].map(async ([name, queue]) => {
          // Redis away: this queue's series are missing from the scrape rather than the scrape hanging.
          const counts = await withRedisDeadline(`count the jobs of ${name}`, queue.getJobCounts(...QUEUE_STATES)).catch(() => null);
          if (counts) for (const state of QUEUE_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
}
