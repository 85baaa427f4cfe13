import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnModuleInit } from '@nestjs/common';
import {
  AppConfig,
  chooseMemberToRemove,
  Cluster,
  CLUSTER_CAS,
  ClusterEvent,
  ClusterEventKind,
  ClusterMember,
  ClusterStatus,
  compareAndSet,
  InstanceLifecycle,
  Principal,
  QuotaExceeded,
} from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver, listenerFault, LOAD_BALANCER_DRIVER, LoadBalancerDriver, NETWORK_DRIVER, NetworkDriver, ObservedListener } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { Job } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { HostListeners } from '../gateway/host-listeners';
import { makeOneBackend } from '../gateway/one-backend-listener';
import { OnFinalFailure } from '../jobs/final-failure';
import { withDriverErrors } from '../jobs/driver-errors';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { addressRequest } from '../jobs/network-address';
import { delayWhileNotReady, NotReadyYet, RecheckDelays } from '../jobs/not-ready';
import { WorkClock } from '../jobs/work-clock';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { clusterAddressKey, clusterDnsListenerId, clusterListener, clusterListenerId, dnsListener, listenerAsWanted } from './cluster-balancer';
import { ClusterAdoption } from './cluster-adoption';
import { ClusterMembers, ObservedMember } from './cluster-members';
import { planRollout, RolloutInput, rolloutStepText, RolloutStep, surgeOf } from './cluster-rollout';

/**
 * A cluster waiting on a member (booting, or not yet passing its check) is
 * looked at again after a quarter of its job's age, between 100 ms and 1 s;
 * the balancer's health notices bring the look forward (ClustersReconciler).
 */
const MEMBER_RECHECK: RecheckDelays = { share: 0.25, minMs: 100, maxMs: 1_000 };

/** The statuses in which a converge job works; COMPLETE is its end, everything else is someone else's. */
const CONVERGING: ClusterStatus[] = ['CREATE_IN_PROGRESS', 'UPDATE_IN_PROGRESS'];

/** A build has no rollout: every member is of its first spec. */
const NO_ROLLOUT: RolloutStep = { action: 'none' };

/** The transaction that would link a member found the cluster had enough, or had moved on. */
class MemberNotWanted extends Error {}

/**
 * Builds, repairs and deletes clusters. One job per change of desired
 * state; each run looks at what is (members, their instances, the
 * balancer) and takes the next step towards what the row asks: at most one
 * member is ever being built, and the next starts only once the last runs
 * and passes the balancer's check. Waiting is a delayed job, never a held
 * worker slot.
 */
@Processor(QUEUES.clusters, INSTANCE_WORKER_OPTIONS)
export class ClustersProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(ClustersProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.clusters> = {
    'cluster.converge': ({ clusterId, generation }) => this.converge(clusterId, generation),
    'cluster.delete': ({ clusterId, generation }) => this.delete(clusterId, generation),
  };

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly instances: InstanceLifecycle,
    private readonly members: ClusterMembers,
    private readonly hosts: HostListeners,
    private readonly adoption: ClusterAdoption,
    @Inject(NETWORK_DRIVER) private readonly network: NetworkDriver,
    @Inject(LOAD_BALANCER_DRIVER) private readonly balancer: LoadBalancerDriver,
    @Inject(COMPUTE_DRIVER) private readonly compute: ComputeDriver,
    private readonly clock: WorkClock,
  ) {
    super();
    assertHandlers(QUEUES.clusters, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WORKER_CONCURRENCY;
  }

  process(job: Job, token?: string): Promise<unknown> {
    return delayWhileNotReady(job, token, MEMBER_RECHECK, () => runHandler(this.handlers, job, token));
  }

  /** Attempts exhausted on a retryable error: the build fails (a heal is tried again by the reconciler). */
  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    if (job.name !== 'cluster.converge') return;
    const { clusterId, generation } = job.data;
    await this.failBuild(clusterId, generation, `build failed after ${job.attemptsMade} attempts: ${err.message}`);
  }

  private async converge(id: string, generation: number): Promise<void> {
    const cluster = await this.dataSource.getRepository(Cluster).findOneBy({ id });
    // Duplicate or late delivery: the row has moved on, nothing to do.
    if (!cluster || !CONVERGING.includes(cluster.status) || cluster.generation !== generation) return;
    const building = cluster.status === 'CREATE_IN_PROGRESS';
    if (building && (await this.clock.passed('clusters', id, cluster.buildDeadline))) {
      return this.failBuild(id, generation, 'build did not finish before its deadline');
    }
    const fail = (reason: string) => (building ? this.failBuild(id, generation, reason) : Promise.resolve());
    const address = await withDriverErrors(() => this.ensureAddress(cluster), fail);
    if (address === null) return;
    const at = { ...cluster, address };
    await withDriverErrors(() => this.ensureBalancer(at), fail);

    const { members, listener } = await this.members.observe(cluster);
    // A member that failed to boot during the build fails the build (its image or user_data is at fault); any other loss is replaced.
    const failed = building ? members.find((m) => m.instanceStatus === 'ERROR') : undefined;
    if (failed) return this.failBuild(id, generation, `member ${failed.instanceId} ${failed.lost}`);
    // A rolling update (cluster-rollout.ts): members of an older spec replaced one at a time, one new member beyond desired_size.
    const rollout = building ? NO_ROLLOUT : await this.nextRolloutStep(cluster, members, listener);
    if (rollout.action === 'fail') return this.failUpdate(cluster, rollout, members);
    const size = cluster.desiredSize + surgeOf(rollout);
    const principal: Principal = { projectId: cluster.projectId, userId: cluster.userId };
    for (const m of members.filter((m) => m.lost && m.instanceStatus !== 'DELETING')) {
      if (m.address) await this.members.removeBackend(id, { address: m.address, port: cluster.port });
      await this.instances.delete(m.instanceId, principal);
      await this.event(id, building ? 'build' : 'heal', `member ${m.instanceId} replaced: ${m.lost}`);
    }
    const all = members.filter((m) => !m.lost);
    // A scale-in takes one member out at a time: drained first, its instance deleted once the balancer let it go.
    const leaving = rollout.action === 'replace' ? (all.find((m) => m.instanceId === rollout.old) ?? null) : all.length > size ? this.memberToRemove(cluster, all, listener) : null;
    const live = all.filter((m) => m !== leaving);
    // Backends of no live member (one lost meanwhile, or an instance gone with its link) leave the pool.
    const wanted = new Set(live.filter((m) => m.address).map((m) => `${m.address}:${cluster.port}`));
    for (const b of listener?.backends ?? []) {
      if (b.state !== 'removing' && !wanted.has(`${b.address}:${b.port}`)) await this.balancer.removeBackend(clusterListenerId(id), b);
    }
    // A booted member is a backend at once; it takes connections once its port answers the check.
    const held = new Set((listener?.backends ?? []).filter((b) => b.state === 'active').map((b) => `${b.address}:${b.port}`));
    for (const m of live) {
      if (m.instanceStatus === 'ACTIVE' && m.address && !held.has(`${m.address}:${cluster.port}`)) {
        await withDriverErrors(() => this.balancer.addBackend(clusterListenerId(id), { address: m.address!, port: cluster.port }), fail);
      }
    }
    await this.members.record(members);

    const pending = live.find((m) => m.building || m.health !== 'up');
    const healthy = live.filter((m) => !m.building && m.health === 'up').length;
    if (pending) {
      const n = live.indexOf(pending) + 1;
      const doing = pending.building ? 'booting' : `waiting for port ${cluster.port} to answer the health check`;
      await this.setStep(at, rolloutStepText(rollout, doing) ?? `member ${n} of ${cluster.desiredSize} (${pending.instanceId}): ${doing}`);
      throw new NotReadyYet(id);
    }
    // Made from an instance: its URL moves to the balancer and its snapshot is made before any other member (cluster-adoption.ts).
    const adoption = await withDriverErrors(() => this.adoption.prepare(at, live), fail);
    if (adoption !== null) return fail(adoption);
    if (live.length < size) {
      let made: string | null;
      try {
        made = await this.addMember(at, principal, surgeOf(rollout));
      } catch (err) {
        // Members are the project's instances and count against its quota: a build that cannot
        // have them fails with the quota's words; a heal or growth waits, saying why, until one is freed.
        if (!(err instanceof QuotaExceeded)) throw err;
        if (building) return this.failBuild(id, generation, err.message);
        // A rolling update needs room for one member more than it keeps: without it, it cannot replace any.
        if (rollout.action === 'surge') return this.failUpdate(cluster, { reason: `no room for the new member: ${err.message}`, failed: [] }, members);
        await this.setStep(at, `member ${live.length + 1} of ${cluster.desiredSize}: waiting, ${err.message}`);
        throw new NotReadyYet(id);
      }
      if (made) await this.setStep(at, rolloutStepText(rollout, made) ?? `member ${live.length + 1} of ${cluster.desiredSize} (${made}): booting`);
      throw new NotReadyYet(id);
    }
    if (leaving) {
      // Deleting the instance before the balancer let it go would fail the requests it still serves.
      const backend = leaving.address ? listener?.backends.find((b) => b.address === leaving.address && b.port === cluster.port) : undefined;
      if (backend) {
        if (backend.state !== 'removing') await this.members.removeBackend(id, { address: backend.address, port: backend.port });
        const draining = `draining (${backend.connections} connection(s) open)`;
        await this.setStep(at, rolloutStepText(rollout, draining) ?? `removing member ${leaving.instanceId}: ${draining}`);
        throw new NotReadyYet(id);
      }
      await this.instances.delete(leaving.instanceId, principal);
      this.logger.log({ cluster: id, member: leaving.instanceId }, 'member drained and removed');
      if (rollout.action === 'replace') {
        await this.event(id, 'update', `member ${leaving.instanceId} replaced${rollout.by ? ` by ${rollout.by}` : ''}: ${whatChanged(cluster, leaving)}`);
        // The next run boots the next new member, or finds none old left and completes.
        throw new NotReadyYet(id);
      }
      // More than one too many (a size lowered by hand): the next run drains the next.
      if (live.length > cluster.desiredSize) throw new NotReadyYet(id);
    }
    const done: ClusterStatus = building ? 'CREATE_COMPLETE' : 'UPDATE_COMPLETE';
    const moved = await this.dataSource.transaction(async (m) => {
      const ok = await compareAndSet(m, CLUSTER_CAS, id, cluster.status, done, generation, { step: null, statusReason: null, buildDeadline: null });
      if (ok) await this.event(id, building ? 'build' : 'heal', `${healthy} of ${cluster.desiredSize} member(s) running and healthy`, m);
      return ok;
    });
    if (moved) this.logger.log({ cluster: id, status: done, members: healthy }, 'cluster converged');
  }

  /**
   * The member a scale-in removes: the one already leaving the balancer (an
   * earlier run chose it), else chooseMemberToRemove's pick by readiness,
   * open connections and age.
   */
  private memberToRemove(cluster: Cluster, live: ObservedMember[], listener: ObservedListener | null): ObservedMember {
    const backendOf = (m: ObservedMember) => (m.address ? listener?.backends.find((b) => b.address === m.address && b.port === cluster.port) : undefined);
    const already = live.find((m) => {
      const state = backendOf(m)?.state;
      return state === 'removing' || state === 'draining';
    });
    if (already) return already;
    const chosen = chooseMemberToRemove(
      live.map((m) => {
        const backend = backendOf(m);
        return {
          id: m.instanceId,
          createdAt: m.createdAt.getTime(),
          ready: !m.building && m.health === 'up',
          connections: backend ? backend.connections : null,
          // The instance the cluster was made from was the application before the cluster: a scale-in leaves it.
          keep: m.instanceId === cluster.sourceInstanceId,
        };
      }),
    );
    return live.find((m) => m.instanceId === chosen) ?? live[live.length - 1];
  }

  // --- Rolling updates (cluster-rollout.ts decides; these observe and act) ---

  /**
   * The rollout's next step. A plan that fails is made again leaving out the
   * time the control plane stood still since the members it gives up on were
   * created: one that seemed late may only have waited out an outage.
   */
  private async nextRolloutStep(cluster: Cluster, members: ObservedMember[], listener: ObservedListener | null): Promise<RolloutStep> {
    const input = this.rolloutInput(cluster, members, listener);
    const step = planRollout(input);
    if (step.action !== 'fail') return step;
    const since = Math.min(...input.members.filter((m) => step.failed.includes(m.id)).map((m) => m.createdAt));
    return planRollout({ ...input, stoodStill: await this.clock.standStillsSince(new Date(since)) });
  }

  private rolloutInput(cluster: Cluster, members: ObservedMember[], listener: ObservedListener | null): RolloutInput {
    const backendOf = (m: ObservedMember) => (m.address ? listener?.backends.find((b) => b.address === m.address && b.port === cluster.port) : undefined);
    return {
      specGeneration: cluster.specGeneration,
      desired: cluster.desiredSize,
      now: Date.now(),
      readyWithinMs: this.config.CLUSTER_BUILD_DEADLINE_MS,
      stoodStill: [],
      // A member lost otherwise (its process exited, its instance deleted) is healed, not weighed.
      members: members
        .filter((m) => !m.lost || m.instanceStatus === 'ERROR')
        .map((m) => {
          const backend = backendOf(m);
          return {
            id: m.instanceId,
            specGeneration: m.specGeneration,
            createdAt: m.createdAt.getTime(),
            ready: !m.building && m.health === 'up',
            failed: m.instanceStatus === 'ERROR',
            failure: m.statusReason,
            connections: backend ? backend.connections : null,
            leaving: backend?.state === 'removing' || backend?.state === 'draining',
          };
        }),
    };
  }

  /**
   * Ends a rolling update UPDATE_FAILED: the new members that failed are
   * removed, and the cluster's member definition goes back to that of the
   * members still serving (read from one of their instances), so healing
   * and scaling go on building what is known to work. Those members take
   * the new spec_generation: they are the cluster's spec again.
   */
  private async failUpdate(cluster: Cluster, failure: { reason: string; failed: string[] }, members: ObservedMember[]): Promise<void> {
    const principal: Principal = { projectId: cluster.projectId, userId: cluster.userId };
    for (const m of members.filter((m) => failure.failed.includes(m.instanceId) && m.instanceStatus !== 'DELETING')) {
      if (m.address) await this.members.removeBackend(cluster.id, { address: m.address, port: cluster.port });
      await this.instances.delete(m.instanceId, principal);
    }
    const serving = members.filter((m) => !m.lost && m.specGeneration !== cluster.specGeneration).sort((a, b) => b.specGeneration - a.specGeneration);
    const previous = serving[0];
    const [spec]: Array<{ imageId: string; flavorId: string; keyName: string; userData: string | null }> = previous
      ? await this.dataSource.query(`SELECT image_id AS "imageId", flavor_id AS "flavorId", keypair_name AS "keyName", user_data AS "userData" FROM instances WHERE id = $1`, [
          previous.instanceId,
        ])
      : [];
    const specGeneration = cluster.specGeneration + 1;
    const kept = spec ? `; back to image ${spec.imageId}, flavor ${spec.flavorId}: the members of the previous spec keep serving` : '';
    const moved = await this.dataSource.transaction(async (m) => {
      const ok = await compareAndSet(m, CLUSTER_CAS, cluster.id, 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED', cluster.generation, {
        statusReason: `rolling update failed: ${failure.reason}`,
        step: null,
        ...(spec ? { ...spec, specGeneration } : {}),
      });
      if (!ok) return false;
      if (spec)
        await m.query(`UPDATE cluster_members SET spec_generation = $3 WHERE cluster_id = $1 AND spec_generation = $2`, [cluster.id, previous.specGeneration, specGeneration]);
      await this.event(cluster.id, 'update', `rolling update failed: ${failure.reason}${kept}`, m);
      return true;
    });
    if (moved) this.logger.warn({ cluster: cluster.id, reason: failure.reason }, 'cluster update failed');
  }

  /** The cluster's address from the network driver, written to the row; null when the row moved on meanwhile. */
  private async ensureAddress(cluster: Cluster): Promise<string | null> {
    const address = await this.network.ensureAddress(await addressRequest(this.dataSource, clusterAddressKey(cluster.id), cluster.networkId, 'cluster'));
    if (cluster.address === address) return address;
    const [rows] = await this.dataSource.query(`UPDATE clusters SET address = $2::text::inet, updated_at = now() WHERE id = $1 AND generation = $3 RETURNING 1`, [
      cluster.id,
      address,
      cluster.generation,
    ]);
    return rows.length ? address : null;
  }

  /** The balancer's listener and the dnsName's entry, each made or changed only where it differs. */
  private async ensureBalancer(cluster: Cluster & { address: string }): Promise<void> {
    const want = clusterListener(cluster);
    const seen = await this.balancer.observe(want.id);
    // A provider that does not say what it holds (no `spec`) is taken at its word; one that says it does not serve it is asked again (listenerFault).
    if (!seen || listenerFault(seen) || (seen.spec && !listenerAsWanted(seen.spec, want))) await this.balancer.ensureListener(want);
    const dns = dnsListener(cluster, this.hosts.http);
    if (dns) await makeOneBackend(this.balancer, dns, await this.balancer.observe(dns.listener.id));
  }

  /**
   * Starts one member: an instance made as POST /v1/instances makes it, its
   * link written in the same transaction, which first locks the cluster row
   * and counts: two runs racing (a redelivered job) never make two. `surge`
   * is how many it may make beyond desired_size (a rolling update's one).
   * Returns its id, or null when none was wanted after all.
   */
  private async addMember(cluster: Cluster, principal: Principal, surge = 0): Promise<string | null> {
    try {
      const instance = await this.instances.create(
        {
          name: `${cluster.name}-member`,
          image_id: cluster.imageId,
          flavor_id: cluster.flavorId,
          network_id: cluster.networkId,
          keypair_name: cluster.keyName,
          port: cluster.port,
          ...(cluster.userData !== null ? { user_data: cluster.userData } : {}),
        },
        principal,
        async (m: EntityManager, instanceId: string) => {
          const [locked] = await m.query(`SELECT generation, desired_size FROM clusters WHERE id = $1 FOR UPDATE`, [cluster.id]);
          if (!locked || locked.generation !== cluster.generation) throw new MemberNotWanted();
          const [{ count }] = await m.query(
            `SELECT count(*)::int AS count FROM cluster_members cm JOIN instances i ON i.id = cm.instance_id WHERE cm.cluster_id = $1 AND i.status IN ('BUILD', 'ACTIVE')`,
            [cluster.id],
          );
          if (count >= locked.desired_size + surge) throw new MemberNotWanted();
          await m.getRepository(ClusterMember).insert({ instanceId, clusterId: cluster.id, specGeneration: cluster.specGeneration });
        },
      );
      return instance.id;
    } catch (err) {
      if (err instanceof MemberNotWanted) return null;
      throw err;
    }
  }

  /** Ends a build in CREATE_FAILED with the reason, and removes every member: a failed build leaves nothing running. */
  private async failBuild(id: string, generation: number, reason: string): Promise<void> {
    const moved = await this.dataSource.transaction(async (m) => {
      const ok = await compareAndSet(m, CLUSTER_CAS, id, 'CREATE_IN_PROGRESS', 'CREATE_FAILED', generation, { statusReason: reason, step: null });
      if (ok) await this.event(id, 'build', `stack creation failed: ${reason}`, m);
      return ok;
    });
    if (!moved) return;
    this.logger.warn({ cluster: id, reason }, 'cluster build failed');
    // The instance a cluster was made from was running before it: it stays, and serves its URL behind the balancer.
    await this.removeMembers(id, true);
  }

  /** Takes every member (but the instance it was made from, with `keepSource`) out of the balancer and deletes its instance; returns how many links remain. */
  private async removeMembers(id: string, keepSource = false): Promise<number> {
    const cluster = await this.dataSource.getRepository(Cluster).findOneBy({ id });
    if (!cluster) return 0;
    const { members } = await this.members.observe(cluster);
    const principal: Principal = { projectId: cluster.projectId, userId: cluster.userId };
    for (const m of members) {
      if (keepSource && m.instanceId === cluster.sourceInstanceId) continue;
      if (m.address) await this.members.removeBackend(id, { address: m.address, port: cluster.port });
      if (m.instanceStatus !== 'DELETING') await this.instances.delete(m.instanceId, principal);
    }
    return members.length;
  }

  private async delete(id: string, generation: number): Promise<void> {
    const cluster = await this.dataSource.getRepository(Cluster).findOneBy({ id });
    if (!cluster || cluster.status !== 'DELETE_IN_PROGRESS' || cluster.generation !== generation) return;
    const fail = (reason: string) =>
      compareAndSet(this.dataSource.manager, CLUSTER_CAS, id, 'DELETE_IN_PROGRESS', 'DELETE_FAILED', generation, { statusReason: reason, step: null });
    await withDriverErrors(async () => {
      // The name goes first: nothing new is sent to a cluster on its way out. So do the names and routes it took from an instance.
      await this.balancer.deleteListener(clusterDnsListenerId(id));
      await this.adoption.release(cluster);
      const remaining = await this.removeMembers(id);
      if (remaining > 0) {
        await this.setStep(cluster, `removing members: ${remaining} left`);
        // Their instances' delete jobs remove them, and the links with them.
        throw new NotReadyYet(id);
      }
      await this.balancer.deleteListener(clusterListenerId(id));
      await this.network.releaseAddress(clusterAddressKey(id));
      await this.compute.removePlacementGroup?.(id);
    }, fail);
    await this.dataSource.getRepository(Cluster).delete({ id, status: 'DELETE_IN_PROGRESS', generation });
    this.logger.log({ cluster: id }, 'cluster deleted');
  }

  private async setStep(cluster: Cluster, step: string): Promise<void> {
    if (cluster.step === step) return;
    await this.dataSource.query(`UPDATE clusters SET step = $3 WHERE id = $1 AND generation = $2`, [cluster.id, cluster.generation, step]);
    cluster.step = step;
  }

  private async event(clusterId: string, kind: ClusterEventKind, reason: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.getRepository(ClusterEvent).insert({ clusterId, kind, reason });
  }
}

/** What a rolling update changed between an old member and the cluster's spec, for its events. */
function whatChanged(cluster: Cluster, old: ObservedMember): string {
  const changed = [old.imageId !== cluster.imageId ? 'image' : null, old.flavorId !== cluster.flavorId ? 'flavor' : null].filter((c) => c !== null);
  return changed.length ? `${changed.join(' and ')} changed` : 'member definition changed';
}
