import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '@stratus/providers';
import { QUEUES, resourceJobId } from '@stratus/queue';
import { Job, Queue } from 'bullmq';
import { OnFinalFailure } from '../jobs/final-failure';
import { withDriverErrors } from '../jobs/driver-errors';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { delayWhileNotReady, NotReadyYet, RecheckDelays } from '../jobs/not-ready';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { HostListeners } from './host-listeners';
import { ROUTE_LISTENER_PREFIX } from './route-listener';
import { RouteListeners } from './route-listeners';

/**
 * A route not served yet is looked at again when the provider says its
 * listener changed (`watch`), else after a quarter of its job's age,
 * between 20 ms and 1 s: soon while the api's create waits for the
 * verdict, rarely once an edge that is down keeps it pending.
 */
const RECHECK: RecheckDelays = { share: 0.25, minMs: 20, maxMs: 1_000 };
/** Past this many bind timeouts the create has answered long ago: the reconciler takes over. */
const GIVE_UP_AFTER_TIMEOUTS = 4;

/**
 * Makes gateway routes real on the load-balancer driver: a listener on the
 * gateway host with the route's target as its one backend. The api's create
 * waits for the verdict this writes to the route; while the provider has
 * not taken the listener up, the job goes back to the delayed set (as an
 * instance's boot does) rather than holding a worker slot, and is promoted
 * out of it when the provider says the listener changed.
 *
 * Proxy hosts are the other one-backend listeners, on this queue too: a
 * host job makes the listener as the proxy host asks now and ends, since
 * nothing waits for a verdict (DNS create is active on create). While the
 * proxy host's instance has no address yet it waits in the delayed set
 * (NotReadyYet) for the instance's create job to have one assigned.
 */
@Processor(QUEUES.routes, INSTANCE_WORKER_OPTIONS)
export class RoutesProcessor extends WorkerHost implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RoutesProcessor.name);

  /** Stops the driver's notices; null when it gives none. */
  private unwatch: (() => void) | null = null;
  /** When a notice last came for each route's listener (forgotten once its job ends). */
  private readonly noticed = new Map<string, number>();

  private readonly handlers: JobHandlers<typeof QUEUES.routes> = {
    'route.apply': ({ routeId }, job) => this.apply(routeId, job),
    'route.delete': ({ routeId }) => this.delete(routeId),
    'host.apply': ({ proxyHostId }) => this.applyHost(proxyHostId),
    // Level-based: with the proxy host gone, its apply deletes the listener.
    'host.delete': ({ proxyHostId }) => this.applyHost(proxyHostId),
  };

  constructor(
    private readonly listeners: RouteListeners,
    private readonly hosts: HostListeners,
    private readonly config: AppConfig,
    @Inject(LOAD_BALANCER_DRIVER) private readonly driver: LoadBalancerDriver,
    @InjectQueue(QUEUES.routes) private readonly queue: Queue,
  ) {
    super();
    assertHandlers(QUEUES.routes, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WORKER_CONCURRENCY;
  }

  onApplicationBootstrap(): void {
    this.unwatch = this.driver.watch?.((id) => this.heard(id)) ?? null;
  }

  onApplicationShutdown(): void {
    this.unwatch?.();
  }

  /**
   * The provider says a listener's status changed: the route's job, delayed
   * while it waited, runs now rather than at its delay (Redis wakes blocked
   * workers at its own pace: the delays below come back no sooner than
   * about 100 ms). A job still running sees the notice in `noticed`.
   */
  private heard(listenerId: string): void {
    if (!listenerId.startsWith(ROUTE_LISTENER_PREFIX)) return;
    const routeId = listenerId.slice(ROUTE_LISTENER_PREFIX.length);
    const now = Date.now();
    this.noticed.set(routeId, now);
    // Notices of routes no job of this worker waits for: forgotten once stale.
    if (this.noticed.size > 1_000) for (const [id, at] of this.noticed) if (now - at > 10_000) this.noticed.delete(id);
    void this.queue
      .getJob(resourceJobId('route.apply', routeId, 1))
      .then((job) => job?.promote())
      // Not delayed (running, or done): nothing to hurry.
      .catch(() => undefined);
  }

  process(job: Job, token?: string): Promise<unknown> {
    return delayWhileNotReady(job, token, RECHECK, () => runHandler(this.handlers, job, token));
  }

  /**
   * Attempts exhausted on a retryable error (an Octavia load balancer that
   * goes to ERROR again each time it is made): a route with no verdict yet
   * gets this one, so its create answers why rather than wait it out.
   */
  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    if (job.name !== 'route.apply') return;
    const route = await this.listeners.route(job.data.routeId);
    if (route && !route.boundAt && !route.bindError) await this.listeners.record(route.id, `the listener failed after ${job.attemptsMade} attempts: ${err.message}`);
  }

  private async apply(routeId: string, job: Job): Promise<void> {
    try {
      // A notice that came while this run looked is not lost: it looks again at once.
      for (;;) {
        const started = Date.now();
        if (!(await this.applyOnce(routeId, job))) return;
        if ((this.noticed.get(routeId) ?? 0) < started) throw new NotReadyYet(routeId);
      }
    } finally {
      this.noticed.delete(routeId);
    }
  }

  /** One look at the route's listener; true when it is still pending. */
  private async applyOnce(routeId: string, job: Job): Promise<boolean> {
    const route = await this.listeners.route(routeId);
    if (!route) {
      // Deleted before (or while) it was made: nothing of it may stay.
      await this.listeners.delete(routeId);
      return false;
    }
    // The verdict is in (an earlier run, or the reconciler): the create has its answer.
    if (route.boundAt || route.bindError) return false;
    const seen = await this.listeners.observe(routeId);
    const observed = await withDriverErrors(
      () => this.listeners.ensure(route, seen),
      (reason) => this.listeners.record(routeId, reason),
    );
    if (!observed) return false;
    if (observed.status === 'pending') {
      if (Date.now() - job.timestamp > GIVE_UP_AFTER_TIMEOUTS * this.config.GATEWAY_BIND_TIMEOUT_MS) {
        this.logger.warn({ route: routeId }, 'the provider has not taken the listener up; left to the reconciler');
        return false;
      }
      return true;
    }
    await this.listeners.record(routeId, observed.status);
    if (observed.status === 'ok') this.logger.log({ route: routeId, port: route.port }, 'route bound');
    else this.logger.warn({ route: routeId, port: route.port, error: observed.status }, 'route not bound');
    return false;
  }

  private async applyHost(proxyHostId: string): Promise<void> {
    const done = await withDriverErrors(
      () => this.hosts.apply(proxyHostId),
      // A proxy host has no status to write it to: said here, and the reconciler tries again.
      async (reason) => this.logger.error({ proxyHost: proxyHostId, error: reason }, 'the provider refuses the listener of a proxy host'),
    );
    // Its instance is being given its address: the job looks again rather than hold a slot.
    if (done === 'waiting') throw new NotReadyYet(proxyHostId);
  }

  private async delete(routeId: string): Promise<void> {
    // The job comes from the route's removal; a route still there is not this one's to take down.
    if (await this.listeners.route(routeId)) return;
    await this.listeners.delete(routeId);
  }
}
