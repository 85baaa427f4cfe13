import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DEFAULT_SCALING_POLICY, scalingPolicyProblem } from '../autoscaling/autoscaling.policy';
import { DataSource, EntityManager, In } from 'typeorm';
import { CatalogLookups } from '../catalog/catalog.lookups';
import { AppConfig } from '../config/app.config';
import { hotFindOne } from '../database/hot-queries';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { ProxyHost } from '../dns/proxy-host.entity';
import { ProxyHostLifecycle } from '../dns/proxy-host.lifecycle';
import { allInOrder } from '../errors/all-in-order';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors/domain-errors';
import { findOwnedInstance, UUID } from '../instances/owned-instance';
import { generatedLabel } from '../instances/instance.lifecycle';
import { JobOutbox } from '../outbox/job-outbox';
import { Principal } from '../projects/projects.service';
import { compareAndSet } from '../status/compare-and-set';
import { ClusterStatus } from '../status/transitions';
import { CLUSTER_CAS } from './cluster-cas';
import { ClusterEvent } from './cluster-event.entity';
import { ClusterMember } from './cluster-member.entity';
import { Cluster } from './cluster.entity';

/** SPEC.md's cluster create fields, under their names (so errors name what the caller sent). */
export interface NewCluster {
  name: string;
  /** Image id or name. */
  image: string;
  /** Flavor id or name. */
  flavor: string;
  min_size?: number;
  max_size?: number;
  backend_network_id: string;
  backend_subnet_id?: string;
  key_name: string;
  port?: number;
  dnsName?: string;
  scale_out_threshold?: number;
  scale_in_threshold?: number;
  /** Run by every member at its first boot, as Heat's member user_data. */
  user_data?: string;
}

/**
 * A cluster's update (PUT), under the create fields' names; a field left out
 * keeps its value. image, flavor, key_name and user_data define the members:
 * a change of any replaces them one at a time. port, dnsName,
 * backend_network_id and backend_subnet_id are the balancer's and the
 * members' place: they are accepted only unchanged.
 */
export interface ClusterUpdate extends Partial<NewCluster> {
  /** How many members to keep now, within min_size..max_size (the autoscaler moves it after its cooldown). */
  desired_size?: number;
}

/** The statuses a PUT is taken in: at rest, or an update (heal, scaling, an earlier PUT) under way, which it supersedes. */
export const CLUSTER_UPDATABLE: readonly ClusterStatus[] = ['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_FAILED', 'UPDATE_IN_PROGRESS'];

/** SPEC.md's from-instance fields: the create's without `image`, plus the running instance it starts from. */
export interface NewClusterFromInstance extends Omit<NewCluster, 'image'> {
  instance_id: string;
}

/** The id of the snapshot image a cluster made from an instance boots its other members from. */
export const clusterSnapshotId = (clusterId: string) => `snap-${clusterId}`;

/** SPEC.md's defaults. */
export const CLUSTER_DEFAULTS = { min_size: 1, max_size: 5, port: 80, scale_out_threshold: 0.7, scale_in_threshold: 0.2 } as const;

/** Events a listing shows: the most recent this many. */
export const RECENT_EVENTS = 20;

/** A member as the listing shows it: its link and what its instance holds now. */
export interface MemberState extends ClusterMember {
  address: string | null;
  instanceStatus: string;
}

/** A cluster with its members and recent events, for the api's views. */
export interface ClusterState {
  cluster: Cluster;
  members: MemberState[];
  events: ClusterEvent[];
}

/**
 * The life of a cluster: created CREATE_IN_PROGRESS with a build job in one
 * transaction with the outbox; the worker builds the members one at a time
 * (through InstanceLifecycle, as POST /v1/instances does) behind a balancer,
 * keeps them there, and on delete removes them, then the balancer.
 */
@Injectable()
export class ClusterLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogLookups,
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
    private readonly proxyHosts: ProxyHostLifecycle,
  ) {}

  async create(spec: NewCluster, principal: Principal): Promise<Cluster> {
    const sizes = this.checkSizes(spec);
    const id = randomUUID();
    const dnsName = this.proxyHosts.hostname(spec.dnsName ?? generatedLabel(spec.name, id), 'dnsName');
    // One round of lookups; with several bad references the first in this order is reported.
    const [image, flavor, network] = await allInOrder([
      this.catalog.requireImageRef(spec.image, 'image', principal.projectId),
      this.catalog.requireFlavor(spec.flavor, 'flavor'),
      this.catalog.requireNetwork(spec.backend_network_id, 'backend_network_id'),
      this.catalog.requireKeypair(spec.key_name, 'key_name'),
    ]);
    const subnetId = this.catalog.requireSubnet(network, spec.backend_subnet_id, 'backend_subnet_id');
    const row = { ...this.rowOf(spec, principal, id, dnsName, sizes), imageId: image.id, flavorId: flavor.id, networkId: network.id, subnetId };
    return this.insert({ ...row, port: spec.port ?? CLUSTER_DEFAULTS.port }, `stack creation started: ${sizes.minSize} member(s) of ${image.name}`);
  }

  /**
   * A cluster whose first member is a running instance of the caller's, as
   * it runs (not rebuilt, not restarted); the worker makes a snapshot image
   * of it for the other members, and moves its URL (proxy hosts, gateway
   * routes) to the balancer once it serves there (ClusterAdoption). The
   * members balance the port the instance serves on: `port` defaults to it
   * and may not differ. The instance is linked as a member here, in the
   * transaction that makes the cluster, under a lock of its row: it must
   * still be ACTIVE, and an instance is a member of one cluster at most.
   * Deleting the cluster deletes every member, this one included.
   */
  async createFromInstance(spec: NewClusterFromInstance, principal: Principal): Promise<Cluster> {
    const sizes = this.checkSizes(spec);
    if (!UUID.test(spec.instance_id)) throw new Invalid('instance_id', 'must be an instance id (UUID)');
    const id = randomUUID();
    const dnsName = this.proxyHosts.hostname(spec.dnsName ?? generatedLabel(spec.name, id), 'dnsName');
    const [flavor, network] = await allInOrder([
      this.catalog.requireFlavor(spec.flavor, 'flavor'),
      this.catalog.requireNetwork(spec.backend_network_id, 'backend_network_id'),
      this.catalog.requireKeypair(spec.key_name, 'key_name'),
    ]);
    const subnetId = this.catalog.requireSubnet(network, spec.backend_subnet_id, 'backend_subnet_id');
    const instance = await findOwnedInstance(this.dataSource, spec.instance_id, principal);
    if (spec.port !== undefined && spec.port !== instance.port) {
      throw new Invalid('port', `instance ${instance.id} serves on port ${instance.port}, the port its cluster balances; omit port or give ${instance.port}`);
    }
    if (network.id !== instance.networkId) throw new Invalid('backend_network_id', `instance ${instance.id} is on network ${instance.networkId}`);
    const row = {
      ...this.rowOf(spec, principal, id, dnsName, sizes),
      imageId: clusterSnapshotId(id),
      flavorId: flavor.id,
      networkId: network.id,
      subnetId,
      port: instance.port,
      sourceInstanceId: instance.id,
    };
    const more = sizes.minSize - 1;
    const reason = `stack creation started from instance ${instance.id} (${instance.name}), the first member as it runs${more ? `; ${more} more from a snapshot of it` : ''}`;
    return this.insert(row, reason, async (manager) => {
      const [held] = await manager.query(`SELECT status FROM instances WHERE id = $1 FOR UPDATE`, [instance.id]);
      if (!held) throw new NotFound(`instance ${instance.id} not found`);
      if (held.status !== 'ACTIVE') throw new Conflict(`instance ${instance.id} is ${held.status}: only an ACTIVE instance can become a cluster`);
      const [member] = await manager.query(`SELECT cluster_id FROM cluster_members WHERE instance_id = $1`, [instance.id]);
      if (member) throw new Conflict(`instance ${instance.id} is already a member of cluster ${member.cluster_id}`);
      await manager.getRepository(ClusterMember).insert({ instanceId: instance.id, clusterId: id, specGeneration: 1 });
    });
  }

  /** The row's fields both creates set alike. */
  private rowOf(
    spec: Omit<NewCluster, 'image'>,
    principal: Principal,
    id: string,
    dnsName: string,
    sizes: Pick<Cluster, 'minSize' | 'maxSize' | 'scaleOutThreshold' | 'scaleInThreshold'>,
  ): Omit<Cluster, 'imageId' | 'flavorId' | 'networkId' | 'subnetId' | 'port' | 'sourceInstanceId' | 'lastScaledAt' | 'createdAt' | 'updatedAt'> {
    return {
      id,
      projectId: principal.projectId,
      userId: principal.userId,
      name: spec.name,
      keyName: spec.key_name,
      dnsName,
      userData: spec.user_data ?? null,
      ...sizes,
      desiredSize: sizes.minSize,
      status: 'CREATE_IN_PROGRESS',
      statusReason: null,
      step: 'waiting for the worker',
      address: null,
      generation: 1,
      specGeneration: 1,
      buildDeadline: new Date(Date.now() + this.config.CLUSTER_BUILD_DEADLINE_MS),
    };
  }

  /** Writes the new cluster, its first event and its build job in one transaction (with `also`'s writes); the job goes out after commit. */
  private async insert(row: Partial<Cluster> & Pick<Cluster, 'id' | 'dnsName'>, reason: string, also?: (manager: EntityManager) => Promise<void>): Promise<Cluster> {
    const { id, dnsName } = row;
    // The name routes on the same HTTP listener as the proxy hosts' names: one of theirs is taken too.
    if (await hotFindOne(this.dataSource, ProxyHost, { hostname: dnsName })) throw new Conflict(`the name ${dnsName} is already taken`);
    const [cluster, entry] = await this.proxyHosts.unique(dnsName, () =>
      this.dataSource.transaction(async (manager) => {
        await manager.getRepository(Cluster).insert(row);
        await also?.(manager);
        await manager.getRepository(ClusterEvent).insert({ clusterId: id, kind: 'build', reason });
        const job = await this.outbox.writeJob(manager, 'cluster.converge', id, { clusterId: id, generation: 1 });
        return [await manager.getRepository(Cluster).findOneByOrFail({ id }), job] as const;
      }),
    );
    this.outbox.dispatch([entry]);
    return cluster;
  }

  /**
   * The rules between fields (each field's own type and range are the DTO's):
   * max_size at least min_size, scale-in below scale-out. Every fault is said.
   * A field left out takes `base`'s value: SPEC's defaults at create, the
   * cluster's own on update.
   */
  private checkSizes(spec: Partial<NewCluster>, base?: Cluster): Pick<Cluster, 'minSize' | 'maxSize' | 'scaleOutThreshold' | 'scaleInThreshold'> {
    const minSize = spec.min_size ?? base?.minSize ?? CLUSTER_DEFAULTS.min_size;
    const maxSize = spec.max_size ?? base?.maxSize ?? Math.max(CLUSTER_DEFAULTS.max_size, minSize);
    const scaleOutThreshold = spec.scale_out_threshold ?? base?.scaleOutThreshold ?? CLUSTER_DEFAULTS.scale_out_threshold;
    const scaleInThreshold = spec.scale_in_threshold ?? base?.scaleInThreshold ?? CLUSTER_DEFAULTS.scale_in_threshold;
    // The autoscaler's own rule, so a cluster the api accepts is one the worker can scale.
    const problem = scalingPolicyProblem({ ...DEFAULT_SCALING_POLICY, minSize, maxSize, scaleOutThreshold, scaleInThreshold });
    if (problem) throw new Invalid(problem.field, problem.message);
    return { minSize, maxSize, scaleOutThreshold, scaleInThreshold };
  }

  /**
   * Changes the cluster as Heat's stack update: UPDATE_IN_PROGRESS with a
   * converge job, which scales to the new desired_size and, when the member
   * definition changed (a new spec_generation), replaces the members one at
   * a time (the worker's cluster-rollout.ts); UPDATE_COMPLETE when done.
   * Every field is checked as at create, by the same rules; a cluster being
   * built, failed to build or deleted is refused (409).
   */
  async update(id: string, patch: ClusterUpdate, principal: Principal): Promise<ClusterState> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.owned(id, principal);
      const change = await this.checkUpdate(row, patch, principal);
      if (!CLUSTER_UPDATABLE.includes(row.status)) {
        throw new Conflict(`cluster ${id} is ${row.status}: it takes an update once built (CREATE_COMPLETE), and not while it is deleted`);
      }
      if (change.said.length === 0) return this.get(id, principal);
      const next = row.generation + 1;
      const entry = await this.dataSource.transaction(async (manager) => {
        const moved = await compareAndSet(manager, CLUSTER_CAS, id, row.status, 'UPDATE_IN_PROGRESS', row.generation, {
          ...change.fields,
          generation: next,
          statusReason: null,
          step: change.fields.specGeneration ? 'rolling update: starting' : 'updating',
        });
        if (!moved) return null;
        await manager.getRepository(ClusterEvent).insert({ clusterId: id, kind: 'update', reason: `update started: ${change.said.join('; ')}` });
        return this.outbox.writeJob(manager, 'cluster.converge', id, { clusterId: id, generation: next });
      });
      if (entry) {
        this.outbox.dispatch([entry]);
        return this.get(id, principal);
      }
    }
    throw new Conflict(`cluster ${id} is changing; try again`);
  }

  /**
   * What the update changes, checked field by field (the first fault is the
   * 400), with a phrase for each change; nothing is written.
   */
  private async checkUpdate(row: Cluster, patch: ClusterUpdate, principal: Principal): Promise<{ fields: Partial<Cluster>; said: string[] }> {
    // The balancer's place and the members' network: a new one is a new cluster.
    const fixed: Array<[keyof ClusterUpdate, unknown, () => unknown]> = [
      ['port', row.port, () => patch.port],
      ['dnsName', row.dnsName, () => (patch.dnsName === undefined ? undefined : this.proxyHosts.hostname(patch.dnsName, 'dnsName'))],
      ['backend_network_id', row.networkId, () => patch.backend_network_id],
      ['backend_subnet_id', row.subnetId, () => patch.backend_subnet_id],
    ];
    for (const [field, held, sent] of fixed) {
      const value = sent();
      if (value !== undefined && value !== held) throw new Invalid(field, `cannot be changed by an update (it is ${String(held)}); create a new cluster for another`);
    }
    const sizes = this.checkSizes(patch, row);
    const desiredSize = patch.desired_size ?? Math.min(Math.max(row.desiredSize, sizes.minSize), sizes.maxSize);
    if (desiredSize < sizes.minSize || desiredSize > sizes.maxSize) {
      throw new Invalid('desired_size', `desired_size (${desiredSize}) must be between min_size (${sizes.minSize}) and max_size (${sizes.maxSize})`);
    }
    const [image, flavor] = await allInOrder([
      patch.image === undefined ? Promise.resolve(null) : this.catalog.requireImageRef(patch.image, 'image', principal.projectId),
      patch.flavor === undefined ? Promise.resolve(null) : this.catalog.requireFlavor(patch.flavor, 'flavor'),
      patch.key_name === undefined ? Promise.resolve(null) : this.catalog.requireKeypair(patch.key_name, 'key_name'),
    ]);

    const fields: Partial<Cluster> = {};
    const said: string[] = [];
    const set = <K extends keyof Cluster>(key: K, name: string, value: Cluster[K] | undefined, secret = false) => {
      if (value === undefined || value === row[key]) return;
      fields[key] = value;
      // user_data may hold what its author keeps to the members: the event says only that it changed.
      said.push(secret ? `${name} changed` : `${name} ${String(row[key])} to ${String(value)}`);
    };
    set('name', 'name', patch.name);
    set('imageId', 'image', image?.id);
    set('flavorId', 'flavor', flavor?.id);
    set('keyName', 'key_name', patch.key_name);
    set('userData', 'user_data', patch.user_data, true);
    const specChanged = ['imageId', 'flavorId', 'keyName', 'userData'].some((k) => k in fields);
    set('minSize', 'min_size', sizes.minSize);
    set('maxSize', 'max_size', sizes.maxSize);
    set('scaleOutThreshold', 'scale_out_threshold', sizes.scaleOutThreshold);
    set('scaleInThreshold', 'scale_in_threshold', sizes.scaleInThreshold);
    set('desiredSize', 'desired_size', desiredSize);
    // A size set by hand holds for a cooldown before the autoscaler moves it again.
    if (fields.desiredSize !== undefined) fields.lastScaledAt = new Date();
    if (specChanged) {
      fields.specGeneration = row.specGeneration + 1;
      said.push(`members replaced one at a time (spec ${fields.specGeneration})`);
    }
    return { fields, said };
  }

  /** A page of the project's clusters, newest first, with their members and recent events. */
  async list(principal: Principal, page: PageRequest): Promise<RowsPage<ClusterState>> {
    const { rows, next } = await keysetPage(this.dataSource, Cluster, { projectId: principal.projectId }, page);
    return { rows: await this.states(rows), next };
  }

  async get(id: string, principal: Principal): Promise<ClusterState> {
    const [state] = await this.states([await this.owned(id, principal)]);
    return state;
  }

  /**
   * Starts the delete: DELETE_IN_PROGRESS, and the worker drains and removes
   * the members, then the balancer. Repeating it is harmless.
   */
  async delete(id: string, principal: Principal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.owned(id, principal);
      if (row.status === 'DELETE_IN_PROGRESS') return;
      const next = row.generation + 1;
      const entry = await this.dataSource.transaction(async (manager) => {
        const moved = await compareAndSet(manager, CLUSTER_CAS, id, row.status, 'DELETE_IN_PROGRESS', row.generation, {
          generation: next,
          statusReason: null,
          step: 'removing members',
        });
        return moved ? this.outbox.writeJob(manager, 'cluster.delete', id, { clusterId: id, generation: next }) : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new Conflict(`cluster ${id} is changing; try again`);
  }

  /** NotFound when it does not exist, Forbidden when it is another project's. */
  private async owned(id: string, principal: Principal): Promise<Cluster> {
    const row = UUID.test(id) ? await this.dataSource.getRepository(Cluster).findOneBy({ id }) : null;
    if (!row) throw new NotFound(`cluster ${id} not found`);
    if (row.projectId !== principal.projectId) throw new Forbidden(`cluster ${id} belongs to another project`);
    return row;
  }

  /** Members and recent events of the clusters, in two reads whatever their number. */
  async states(clusters: Cluster[]): Promise<ClusterState[]> {
    if (clusters.length === 0) return [];
    const ids = clusters.map((c) => c.id);
    const members: Array<MemberState & { clusterId: string }> = await this.dataSource
      .getRepository(ClusterMember)
      .createQueryBuilder('m')
      .innerJoin('m.instance', 'i')
      .addSelect(['i.address', 'i.status'])
      .where({ clusterId: In(ids) })
      .orderBy('m.created_at', 'ASC')
      .getMany()
      .then((rows) => rows.map((m) => Object.assign(m, { address: m.instance?.address ?? null, instanceStatus: m.instance?.status ?? 'DELETING' })));
    const events: ClusterEvent[] = await this.dataSource.query(
      `SELECT e.id, e.cluster_id AS "clusterId", e.at, e.kind, e.reason FROM unnest($1::uuid[]) AS c(id)
       CROSS JOIN LATERAL (SELECT * FROM cluster_events WHERE cluster_id = c.id ORDER BY at DESC, id DESC LIMIT ${RECENT_EVENTS}) e`,
      [ids],
    );
    return clusters.map((cluster) => ({
      cluster,
      members: members.filter((m) => m.clusterId === cluster.id),
      events: events.filter((e) => e.clusterId === cluster.id).map((e) => Object.assign(e, { at: new Date(e.at) })),
    }));
  }
}
