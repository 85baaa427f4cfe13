import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  advanceCpuWindow,
  AppConfig,
  Cluster,
  CLUSTER_CAS,
  ClusterEvent,
  compareAndSet,
  CpuWindow,
  decideScaling,
  DEFAULT_SCALING_POLICY,
  JobOutbox,
  ScalingDecision,
  ScalingPolicy,
} from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver } from '@stratus/providers';
import { DataSource, In } from 'typeorm';

/** A member as the sampler reads it: its window so far and its flavor's size. */
interface SampledMember {
  instanceId: string;
  status: string;
  vcpus: number;
  cpu: CpuWindow | null;
}

/**
 * Only a cluster at rest is scaled: a build, heal, update or earlier scale
 * under way finishes first. A failed update leaves the members of the
 * previous spec serving, and the cluster scales on them.
 */
const AT_REST = ['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_FAILED'] as const;

/**
 * Autoscaling on measured CPU. Every CLUSTER_AUTOSCALE_INTERVAL_MS (a
 * maintenance schedule, so one worker runs each tick) it reads the
 * cumulative CPU of the ACTIVE members of each cluster at rest, turns it
 * into fractions of their flavor (advanceCpuWindow), keeps the window in
 * cluster_members.cpu, and asks the policy (decideScaling) whether to add
 * or remove a member. A decision moves the cluster to UPDATE_IN_PROGRESS
 * with the new desired_size, its event and its converge job in one
 * transaction: the converge job does the building or the draining.
 */
@Injectable()
export class ClustersAutoscaler {
  private readonly logger = new Logger(ClustersAutoscaler.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly outbox: JobOutbox,
    @Inject(COMPUTE_DRIVER) private readonly compute: ComputeDriver,
  ) {}

  async sweep(): Promise<void> {
    const rows = await this.dataSource.getRepository(Cluster).find({ where: { status: In([...AT_REST]) }, order: { id: 'ASC' } });
    for (const row of rows) {
      await this.look(row).catch((err) => this.logger.error({ cluster: row.id, err: String(err) }, 'cannot autoscale a cluster'));
    }
  }

  /** The cluster's policy: its own thresholds and sizes, the installation's window and cooldown. */
  policyOf(c: Cluster): ScalingPolicy {
    return {
      ...DEFAULT_SCALING_POLICY,
      scaleOutThreshold: c.scaleOutThreshold,
      scaleInThreshold: c.scaleInThreshold,
      minSize: c.minSize,
      maxSize: c.maxSize,
      windowMs: this.config.CLUSTER_SCALE_WINDOW_MS,
      cooldownMs: this.config.CLUSTER_SCALE_COOLDOWN_MS,
    };
  }

  /** Samples the cluster's members, then acts on the policy's decision; returns it. */
  async look(cluster: Cluster): Promise<ScalingDecision> {
    const policy = this.policyOf(cluster);
    const windows = await this.sample(cluster.id, policy.windowMs);
    // Members of another spec than the cluster's are a rolling update's to replace (one member beyond
    // desired_size while it runs): a scaling decision meanwhile would fight it over the size.
    const [{ mixed }] = await this.dataSource.query(`SELECT EXISTS (SELECT 1 FROM cluster_members WHERE cluster_id = $1 AND spec_generation <> $2) AS mixed`, [
      cluster.id,
      cluster.specGeneration,
    ]);
    if (mixed) return { action: 'none', desired: cluster.desiredSize, reason: 'members of an older spec remain: a rolling update replaces them first' };
    const now = Date.now();
    const decision = decideScaling({
      policy,
      now,
      desired: cluster.desiredSize,
      lastScaledAt: cluster.lastScaledAt ? cluster.lastScaledAt.getTime() : null,
      members: [...windows].map(([id, w]) => ({ id, samples: w.samples })),
    });
    if (decision.action !== 'none') await this.scale(cluster, decision);
    return decision;
  }

  /**
   * One reading of every ACTIVE member, folded into its window and written
   * back; returns the windows of the members that run now (the only ones the
   * policy averages).
   */
  async sample(clusterId: string, windowMs: number): Promise<Map<string, CpuWindow>> {
    const members: SampledMember[] = await this.dataSource.query(
      `SELECT m.instance_id AS "instanceId", i.status, f.vcpus, m.cpu
         FROM cluster_members m JOIN instances i ON i.id = m.instance_id JOIN flavors f ON f.id = i.flavor_id
        WHERE m.cluster_id = $1`,
      [clusterId],
    );
    const active = members.filter((m) => m.status === 'ACTIVE');
    const readings = active.length ? await this.compute.usage(active.map((m) => m.instanceId)) : new Map();
    const now = Date.now();
    const windows = new Map<string, CpuWindow>();
    for (const m of active) {
      const reading = readings.get(m.instanceId);
      const next = advanceCpuWindow(m.cpu, reading, m.vcpus, windowMs, now);
      if (reading) windows.set(m.instanceId, next);
      m.cpu = next;
    }
    if (active.length) {
      await this.dataSource.query(
        `UPDATE cluster_members m SET cpu = o.cpu FROM jsonb_to_recordset($1::jsonb) AS o(instance_id uuid, cpu jsonb) WHERE m.instance_id = o.instance_id`,
        [JSON.stringify(active.map((m) => ({ instance_id: m.instanceId, cpu: m.cpu })))],
      );
    }
    return windows;
  }

  /** The decision as a change of desired state: status, size, cooldown start, event and converge job together, or nothing if the row moved on. */
  private async scale(cluster: Cluster, decision: ScalingDecision): Promise<void> {
    const next = cluster.generation + 1;
    const kind = decision.action === 'scale_out' ? 'scale_out' : 'scale_in';
    const entry = await this.dataSource.transaction(async (m) => {
      const moved = await compareAndSet(m, CLUSTER_CAS, cluster.id, cluster.status, 'UPDATE_IN_PROGRESS', cluster.generation, {
        generation: next,
        desiredSize: decision.desired,
        lastScaledAt: new Date(),
        step: `${kind === 'scale_out' ? 'scaling out' : 'scaling in'}: ${decision.reason}`,
      });
      if (!moved) return null;
      await m.getRepository(ClusterEvent).insert({ clusterId: cluster.id, kind, reason: decision.reason });
      return this.outbox.writeJob(m, 'cluster.converge', cluster.id, { clusterId: cluster.id, generation: next });
    });
    if (!entry) return;
    this.outbox.dispatch([entry]);
    this.logger.log({ cluster: cluster.id, action: kind, desired: decision.desired, reason: decision.reason }, 'cluster scaling');
  }
}
