import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, ClusterMember, compareAndSet, Flavor, hotFindOne, Instance, INSTANCE_CAS } from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver, NETWORK_DRIVER, NetworkDriver } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { OnFinalFailure } from '../jobs/final-failure';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { withDriverErrors } from '../jobs/driver-errors';
import { addressRequest } from '../jobs/network-address';
import { delayWhileNotReady, NotReadyYet, RecheckDelays } from '../jobs/not-ready';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { InstancesReconciler } from './instances.reconciler';
import { PacketFilterSync } from '../security-groups/packet-filter.sync';
import { HostListeners } from '../gateway/host-listeners';
import { RouteListeners } from '../gateway/route-listeners';
import { ClusterMembers } from '../clusters/cluster-members';
import { ClustersReconciler } from '../clusters/clusters.reconciler';

/** A booting instance is looked at again after a quarter of its job's age, between 100 ms and 2 s. */
const BOOT_RECHECK: RecheckDelays = { share: 0.25, minMs: 100, maxMs: 2_000 };

/**
 * Builds and tears down instances on the compute driver, one job per change
 * of desired state. A create does not wait for the boot: the driver starts
 * it, and while the instance boots the job goes back to the delayed set
 * (BullMQ DelayedError, as volume attach does) and comes back to look
 * again, so a worker slot is never held by a booting server.
 */
@Processor(QUEUES.instances, INSTANCE_WORKER_OPTIONS)
export class InstancesProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(InstancesProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.instances> = {
    'instance.create': ({ instanceId, generation }) => this.create(instanceId, generation),
    'instance.delete': ({ instanceId, generation }) => this.delete(instanceId, generation),
  };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMPUTE_DRIVER) private readonly driver: ComputeDriver,
    @Inject(NETWORK_DRIVER) private readonly network: NetworkDriver,
    private readonly reconciler: InstancesReconciler,
    private readonly config: AppConfig,
    private readonly packetFilter: PacketFilterSync,
    private readonly routes: RouteListeners,
    private readonly hosts: HostListeners,
    private readonly clusterMembers: ClusterMembers,
    private readonly clusters: ClustersReconciler,
    @InjectQueue(QUEUES.instances) private readonly queue: Queue,
  ) {
    super();
    assertHandlers(QUEUES.instances, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WORKER_CONCURRENCY;
  }

  process(job: Job, token?: string): Promise<unknown> {
    return delayWhileNotReady(job, token, BOOT_RECHECK, () => runHandler(this.handlers, job, token));
  }

  /** Attempts exhausted on a retryable error: the instance will not build. */
  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    if (job.name !== 'instance.create') return;
    const { instanceId, generation } = job.data;
    await compareAndSet(this.dataSource.manager, INSTANCE_CAS, instanceId, 'BUILD', 'ERROR', generation, {
      statusReason: `build failed after ${job.attemptsMade} attempts: ${err.message}`,
    });
  }

  private async create(id: string, generation: number): Promise<void> {
    // The hot way (hot-queries.ts): every create, and every delayed look at a booting one, starts here.
    const row = await hotFindOne(this.dataSource, Instance, { id });
    // The instance was deleted. A delete waits for a create step under way
    // (createStepUnderway), but one BullMQ no longer listed as active (Redis
    // lost, a stalled step run again) may have booted after the removal ran,
    // and no later job would see it: what the provider holds of it goes now.
    if (!row || row.status === 'DELETING') return this.reconciler.removeIfUnwanted(id);
    // Duplicate or late delivery: the row has moved on, nothing to do.
    if (row.status !== 'BUILD' || row.generation !== generation) return;
    const address = await this.assignAddress(row);
    if (address === null) return;
    const [flavor, membership] = await Promise.all([
      this.dataSource.getRepository(Flavor).findOneByOrFail({ id: row.flavorId }),
      this.dataSource.getRepository(ClusterMember).findOne({ where: { instanceId: id }, select: { clusterId: true } }),
    ]);
    // Its first packets meet the boundary: a table is loaded before anything boots.
    await this.packetFilter.loaded();
    const observed = await withDriverErrors(
      () =>
        this.driver.create({
          id,
          imageId: row.imageId,
          address,
          port: row.port,
          userData: row.userData,
          flavor: { vcpus: flavor.vcpus, ramMb: flavor.ramMb },
          keyName: row.keypairName || undefined,
          securityGroupIds: row.securityGroupIds,
          // A cluster's members are spread over the provider's hosts where it has several.
          placementGroup: membership?.clusterId,
        }),
      (reason) => compareAndSet(this.dataSource.manager, INSTANCE_CAS, id, 'BUILD', 'ERROR', generation, { statusReason: reason }),
    );
    // Looked at again whether booted or not: the next look removes it if the row went meanwhile.
    if (!observed.ready) throw new NotReadyYet(id);
    // Its uid is known now: ACTIVE means its groups are in force.
    await this.packetFilter.admitInstance(id, address);
    // One transaction, so nobody sees ACTIVE without its limits. The limits are
    // merged in SQL, not copied from `row`: metadata may have changed during
    // the build (proxy hosts, update-dns).
    const moved = await this.dataSource.transaction(async (manager) => {
      const ok = await compareAndSet(manager, INSTANCE_CAS, id, 'BUILD', 'ACTIVE', generation, { statusReason: null });
      if (ok) {
        await manager.query(`UPDATE instances SET metadata = metadata || jsonb_build_object('resourceLimits', $2::text) WHERE id = $1`, [id, observed.limits]);
      }
      return ok;
    });
    if (moved) {
      this.logger.log({ instance: id, limits: observed.limits }, 'instance active');
      // A cluster building it goes on now (adds it to its balancer), not at its next delayed look.
      await this.clusters.lookAtClusterOf(id);
    } else await this.reconciler.removeIfUnwanted(id);
  }

  /**
   * The instance's address from the network driver (the same one on every
   * repeat of the job), written to the row before anything boots on it. A
   * full network ends the instance in ERROR with a reason that names it.
   * null when the row moved on meanwhile (deleted, or failed): the job has
   * nothing left to do, and the address goes back unless the row took it.
   */
  private async assignAddress(row: Instance): Promise<string | null> {
    const { id, generation } = row;
    const address = await withDriverErrors(
      async () => this.network.ensureAddress(await addressRequest(this.dataSource, id, row.networkId, 'instance')),
      (reason) => compareAndSet(this.dataSource.manager, INSTANCE_CAS, id, 'BUILD', 'ERROR', generation, { statusReason: reason }),
    );
    if (row.address === address) return address;
    const written = await this.dataSource.transaction(async (manager) => {
      const [rows] = await manager.query(
        `UPDATE instances SET address = $2::text::inet, metadata = metadata || jsonb_build_object('privateIp', $2::text), updated_at = now()
          WHERE id = $1 AND status = 'BUILD' AND generation = $3 RETURNING 1`,
        [id, address, generation],
      );
      // Its proxy hosts' jobs, waiting for this (NotReadyYet), find the address at their next look.
      return rows.length > 0;
    });
    if (written) return address;
    const now = await this.dataSource.getRepository(Instance).findOneBy({ id });
    if (now?.address !== address) await this.network.releaseAddress(id);
    return null;
  }

  private async delete(id: string, generation: number): Promise<void> {
    const row = await this.dataSource.getRepository(Instance).findOneBy({ id });
    if (row && (row.status !== 'DELETING' || row.generation !== generation)) return;
    // A create's step under way may be booting the instance on its address: removed now, the address
    // would go back under a boot that starts after, to the next instance given it, maybe another
    // project's. The delete looks again once that step has ended; a step that starts after this look
    // reads the row DELETING and builds nothing.
    if (await this.createStepUnderway(id)) throw new NotReadyYet(id);
    await this.driver.delete(id);
    // Its routes and their listeners go first: no port may still forward to
    // the address once it is given up (the trigger below would remove the
    // routes, but their listeners would wait for the outbox relay).
    await this.routes.removeRoutesTo(id);
    // So is its place in a cluster's balancer: the pool reaches only members that hold their address.
    await this.clusterMembers.removeBackendOf(id);
    // The row gives the address up before the network has it back: from then
    // on nothing routes to it (the routes to it go in this statement, by
    // trigger; no proxy host of an instance without one has a listener), so
    // the next resource given it, maybe another project's, inherits nothing.
    if (row?.address) {
      await this.dataSource.query(`UPDATE instances SET address = NULL, metadata = metadata - 'privateIp' WHERE id = $1 AND status = 'DELETING'`, [id]);
    }
    // Its proxy hosts' listeners go once the address is given up (an apply
    // racing this sees that and takes back what it made) and before the
    // network has it back; the proxy hosts go with the row (foreign key
    // cascade), their delete jobs written by trigger.
    await this.hosts.removeOf(id);
    await this.network.releaseAddress(id);
    await this.dataSource.getRepository(Instance).delete({ id, status: 'DELETING' });
    await this.packetFilter.sync();
    this.logger.log({ instance: id }, 'instance deleted');
  }

  /**
   * Whether a worker, this one or another, runs a step of the instance's
   * create now: BullMQ's active list holds every job whose step is under
   * way, across processes. It costs the delete one look (the active jobs
   * are at most every worker's concurrency), where a turn per step, as a
   * database's, would cost every create a connection.
   */
  private async createStepUnderway(id: string): Promise<boolean> {
    const active = await this.queue.getActive();
    return active.some((job) => job?.name === 'instance.create' && job.data?.instanceId === id);
  }
}
