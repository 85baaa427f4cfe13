import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { QUEUES } from '@stratus/queue';
import { DelayedError, Job } from 'bullmq';
import { withDriverErrors } from '../jobs/driver-errors';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { RouteListeners } from './route-listeners';

/**
 * A route not served yet is looked at again after this share of the time
 * its job has existed, within these bounds: the edge binds a port in a few
 * milliseconds, and the api's create waits for the verdict, so the first
 * looks come quickly; an edge that is down costs few.
 */
const RECHECK_SHARE = 0.25;
const RECHECK_MIN_MS = 5;
const RECHECK_MAX_MS = 1_000;
/** Past this many bind timeouts the create has answered long ago: the reconciler takes over. */
const GIVE_UP_AFTER_TIMEOUTS = 4;

/** The listener is not serving yet: the job is delayed, not held. */
class NotServingYet extends Error {}

/**
 * Makes gateway routes real on the load-balancer driver: a listener on the
 * gateway host with the route's target as its one backend. The api's create
 * waits for the verdict this writes to the route; while the provider has
 * not taken the listener up, the job goes back to the delayed set (as an
 * instance's boot does) rather than holding a worker slot.
 */
@Processor(QUEUES.routes, INSTANCE_WORKER_OPTIONS)
export class RoutesProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(RoutesProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.routes> = {
    'route.apply': ({ routeId }, job) => this.apply(routeId, job),
    'route.delete': ({ routeId }) => this.delete(routeId),
  };

  constructor(
    private readonly listeners: RouteListeners,
    private readonly config: AppConfig,
  ) {
    super();
    assertHandlers(QUEUES.routes, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WORKER_CONCURRENCY;
  }

  async process(job: Job, token?: string): Promise<unknown> {
    try {
      return await runHandler(this.handlers, job);
    } catch (err) {
      if (!(err instanceof NotServingYet) || !token) throw err;
      // Delayed without spending an attempt.
      const waited = Date.now() - job.timestamp;
      const next = Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, waited * RECHECK_SHARE));
      await job.moveToDelayed(Date.now() + next, token);
      throw new DelayedError();
    }
  }

  private async apply(routeId: string, job: Job): Promise<void> {
    const route = await this.listeners.route(routeId);
    if (!route) {
      // Deleted before (or while) it was made: nothing of it may stay.
      await this.listeners.delete(routeId);
      return;
    }
    // The verdict is in (an earlier run, or the reconciler): the create has its answer.
    if (route.boundAt || route.bindError) return;
    const seen = await this.listeners.observe(routeId);
    const observed = await withDriverErrors(
      () => this.listeners.ensure(route, seen),
      (reason) => this.listeners.record(routeId, reason),
    );
    if (!observed) return;
    if (observed.status === 'pending') {
      if (Date.now() - job.timestamp > GIVE_UP_AFTER_TIMEOUTS * this.config.GATEWAY_BIND_TIMEOUT_MS) {
        this.logger.warn({ route: routeId }, 'the provider has not taken the listener up; left to the reconciler');
        return;
      }
      throw new NotServingYet(routeId);
    }
    await this.listeners.record(routeId, observed.status);
    if (observed.status === 'ok') this.logger.log({ route: routeId, port: route.port }, 'route bound');
    else this.logger.warn({ route: routeId, port: route.port, error: observed.status }, 'route not bound');
  }

  private async delete(routeId: string): Promise<void> {
    // The job comes from the route's removal; a route still there is not this one's to take down.
    if (await this.listeners.route(routeId)) return;
    await this.listeners.delete(routeId);
  }
}
