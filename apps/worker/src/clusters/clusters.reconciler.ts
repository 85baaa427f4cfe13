import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { AppConfig, Cluster, CLUSTER_CAS, ClusterEvent, compareAndSet, JobOutbox } from '@stratus/core';
import { listenerFault, LOAD_BALANCER_DRIVER, LoadBalancerDriver, LOCAL_HOOKS, LocalHooks, ObservedListener } from '@stratus/providers';
import { QUEUES, resourceJob, resourceJobId, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource, Not, In } from 'typeorm';
import { ensureJob } from '../jobs/lost-jobs';
import { HostListeners } from '../gateway/host-listeners';
import { CLUSTER_DNS_PREFIX, CLUSTER_LISTENER_PREFIX, dnsListener } from './cluster-balancer';
import { ClusterMembers } from './cluster-members';

/**
 * Level-based watch over clusters. A cluster at rest (CREATE_COMPLETE,
 * UPDATE_COMPLETE, or UPDATE_FAILED: its members serve) that lost a member (its process exited, its instance was
 * deleted or failed) or has fewer than it should starts a heal: an
 * UPDATE_IN_PROGRESS with a converge job, which replaces members one at a
 * time while the others serve. A cluster being built, repaired or deleted
 * gets its job back if Redis lost it. Members' health is written where the
 * api reads it.
 *
 * It looks at once when a member's process exits (the local provider says
 * so) or the balancer's view of a cluster changes (the driver's `watch`),
 * and at every CLUSTER_RECONCILE_INTERVAL_MS anyway: a notice may be missed.
 */
@Injectable()
export class ClustersReconciler implements OnApplicationShutdown {
  private readonly logger = new Logger(ClustersReconciler.name);
  private readonly unwatch: (() => void) | null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly members: ClusterMembers,
    private readonly outbox: JobOutbox,
    @InjectQueue(QUEUES.clusters) private readonly queue: Queue,
    @Inject(LOAD_BALANCER_DRIVER) private readonly balancer: LoadBalancerDriver,
    private readonly hosts: HostListeners,
    private readonly config: AppConfig,
    @Optional() @Inject(LOCAL_HOOKS) hooks?: LocalHooks,
  ) {
    hooks?.onInstanceExit((instanceId) => void this.lookAtClusterOf(instanceId));
    this.unwatch =
      this.balancer.watch?.((listenerId) => {
        if (listenerId.startsWith(CLUSTER_LISTENER_PREFIX)) void this.lookAt(listenerId.slice(CLUSTER_LISTENER_PREFIX.length));
      }) ?? null;
  }

  onApplicationShutdown(): void {
    this.unwatch?.();
  }

  /** Every cluster but those on their way out (their delete job is repaired all the same). */
  async sweep(): Promise<void> {
    const rows = await this.dataSource.getRepository(Cluster).find({ where: { status: Not(In(['DELETE_FAILED', 'CREATE_FAILED'])) }, order: { id: 'ASC' } });
    const dnsEntries = this.dnsEntriesOnce();
    for (const row of rows) {
      await this.reconcile(row, false, dnsEntries).catch((err) => this.logger.error({ cluster: row.id, err: String(err) }, 'cannot reconcile a cluster'));
    }
  }

  /**
   * The dnsName entries the balancer holds, listed once for a whole sweep
   * and only when a cluster at rest asks (none: no call); null when the
   * listing failed, and each cluster's entry is then observed on its own.
   * One listing rather than an observe per cluster: the sweep runs every
   * CLUSTER_RECONCILE_INTERVAL_MS (2 s) over every cluster, and an observe
   * is several calls to the provider (on Octavia, four or five GETs: pool,
   * load balancer, listeners, members, policies), where a listing is one
   * (the managed pools). Rather than observing each entry only every Nth
   * sweep, which would put a heal off by as many sweeps.
   */
  private dnsEntriesOnce(): () => Promise<Set<string> | null> {
    let listed: Promise<Set<string> | null> | null = null;
    return () =>
      (listed ??= this.balancer
        .listenerIds(CLUSTER_DNS_PREFIX)
        .then((ids) => new Set(ids))
        .catch((err) => {
          this.logger.warn({ err: String(err) }, "cannot list the clusters' dnsName entries; observing each instead");
          return null;
        }));
  }

  /**
   * Looks at the cluster the instance is a member of, if any: called when its
   * process exits, and when it went ACTIVE (a build waiting on it goes on at
   * once rather than at its next delayed look).
   */
  async lookAtClusterOf(instanceId: string): Promise<void> {
    const [link] = await this.dataSource.query(`SELECT cluster_id AS "clusterId" FROM cluster_members WHERE instance_id = $1`, [instanceId]).catch(() => []);
    if (link) await this.lookAt(link.clusterId);
  }

  private async lookAt(clusterId: string): Promise<void> {
    try {
      const row = await this.dataSource.getRepository(Cluster).findOneBy({ id: clusterId });
      if (row) await this.reconcile(row, true, null);
    } catch (err) {
      this.logger.warn({ cluster: clusterId, err: String(err) }, 'cannot look at a cluster; the next sweep does');
    }
  }

  private async reconcile(row: Cluster, notice: boolean, dnsEntries: (() => Promise<Set<string> | null>) | null): Promise<void> {
    switch (row.status) {
      case 'CREATE_IN_PROGRESS':
      case 'UPDATE_IN_PROGRESS':
        // Its job may be waiting out a delay: a notice (a member up, or gone) is news for it now.
        if (notice) await this.promote(resourceJobId('cluster.converge', row.id, row.generation));
        else await this.repairJob(row, 'cluster.converge');
        return;
      case 'DELETE_IN_PROGRESS':
        if (notice) await this.promote(resourceJobId('cluster.delete', row.id, row.generation));
        else await this.repairJob(row, 'cluster.delete');
        return;
      case 'CREATE_COMPLETE':
      case 'UPDATE_COMPLETE':
      case 'UPDATE_FAILED':
        return this.healIfNeeded(row, dnsEntries);
      default:
        return;
    }
  }

  /** Starts a heal when a member is lost or missing, or the balancer lost the cluster; records every member's health either way. */
  private async healIfNeeded(row: Cluster, dnsEntries: (() => Promise<Set<string> | null>) | null): Promise<void> {
    const { members, listener } = await this.members.observe(row);
    await this.members.record(members);
    const lost = members.filter((m) => m.lost);
    const live = members.length - lost.length;
    const balancer = await this.balancerLoss(row, listener, dnsEntries);
    // A member on its way out (DELETING) with enough left is a scale-in finishing, not a loss: its delete job removes the link.
    const membersWell = lost.every((m) => m.instanceStatus === 'DELETING') && live >= row.desiredSize;
    if (membersWell && (!balancer || (await this.lastHealReason(row.id)) === balancer)) return;
    const reasons = membersWell ? [] : lost.map((m) => `member ${m.instanceId}: ${m.lost}`);
    if (live + lost.length < row.desiredSize) reasons.push(`${row.desiredSize - live - lost.length} member(s) missing (instance deleted)`);
    if (balancer) reasons.push(balancer);
    const reason = reasons.join('; ');
    const next = row.generation + 1;
    const entry = await this.dataSource.transaction(async (m) => {
      const moved = await compareAndSet(m, CLUSTER_CAS, row.id, row.status, 'UPDATE_IN_PROGRESS', row.generation, {
        generation: next,
        step: `replacing: ${reason}`,
      });
      if (!moved) return null;
      await m.getRepository(ClusterEvent).insert({ clusterId: row.id, kind: 'heal', reason });
      return this.outbox.writeJob(m, 'cluster.converge', row.id, { clusterId: row.id, generation: next });
    });
    if (!entry) return;
    this.outbox.dispatch([entry]);
    this.logger.warn({ cluster: row.id, reason }, 'cluster healing');
  }

  /**
   * What the balancer lost of a cluster at rest, or null: its listener, or
   * its dnsName's entry on the edge's HTTP listener, missing (both go with a
   * load balancer the openstack provider replaced because Octavia put it in
   * ERROR; the entry shares the HTTP address's with every proxy host), or a
   * listener the provider says it does not serve (listenerFault: its own
   * load balancer in ERROR, which the converge's ensure replaces). A heal
   * makes them again, its members as backends. A fault a heal already
   * tried (the last heal's reason) is not healed again each sweep: a port
   * another process holds would not be served by one either. The entry is
   * looked up in the sweep's listing (dnsEntriesOnce); one the listing
   * lacks is observed before it counts as lost, since a listing taken
   * before an entry was made again must not start a heal. A notice about
   * one cluster has no listing and observes it.
   */
  private async balancerLoss(row: Cluster, listener: ObservedListener | null, dnsEntries: (() => Promise<Set<string> | null>) | null): Promise<string | null> {
    if (!row.address) return null;
    if (!listener) return 'its balancer listener is missing';
    const fault = listenerFault(listener);
    if (fault) return `its balancer does not serve it: ${fault}`;
    const dns = dnsListener({ ...row, address: row.address }, this.hosts.http);
    if (!dns) return null;
    const listed = (await dnsEntries?.())?.has(dns.listener.id) ?? false;
    if (!listed && !(await this.balancer.observe(dns.listener.id))) return `the listener of its dnsName ${row.dnsName} is missing`;
    return null;
  }

  private async lastHealReason(clusterId: string): Promise<string | null> {
    const last = await this.dataSource.getRepository(ClusterEvent).findOne({ where: { clusterId, kind: 'heal' }, order: { at: 'DESC', id: 'DESC' } });
    return last?.reason ?? null;
  }

  /** Runs a delayed job now; anything else (running, gone, done) is left as it is. */
  private async promote(jobId: string): Promise<void> {
    const job = await withRedisDeadline(`look up ${jobId}`, this.queue.getJob(jobId));
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }

  private async repairJob(row: Cluster, name: 'cluster.converge' | 'cluster.delete'): Promise<void> {
    if (Date.now() - row.updatedAt.getTime() < this.config.LOST_JOB_GRACE_MS) return;
    const job = resourceJob(name, row.id, { clusterId: row.id, generation: row.generation });
    if (await ensureJob(this.queue, job)) this.logger.warn({ cluster: row.id, job: job.jobId }, 're-enqueued a lost job');
  }
}
