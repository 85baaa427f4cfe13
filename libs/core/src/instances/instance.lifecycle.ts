import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogLookups } from '../catalog/catalog.lookups';
import { AppConfig } from '../config/app.config';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { ProxyHostLifecycle } from '../dns/proxy-host.lifecycle';
import { allInOrder } from '../errors/all-in-order';
import { Conflict, Invalid, NotFound } from '../errors/domain-errors';
import { JobOutbox } from '../outbox/job-outbox';
import { Principal } from '../projects/projects.service';
import { ProjectQuotas } from '../quotas/project-quotas';
import { compareAndSet } from '../status/compare-and-set';
import { VolumeLifecycle } from '../volumes/volume.lifecycle';
import { INSTANCE_CAS } from './instance-cas';
import { Instance } from './instance.entity';
import { findOwnedInstance, UUID } from './owned-instance';

/**
 * An instance as SPEC.md's POST /v1/instances asks for it. Field names are
 * SPEC's, so the api's DTO is one and errors name the fields the caller sent.
 */
export interface NewInstance {
  name: string;
  image_id: string;
  flavor_id: string;
  network_id: string;
  keypair_name: string;
  security_group_ids?: string[];
  security_group_names?: string[];
  /** Creates a volume (size in GB) and attaches it. */
  volume?: { name: string; size: number };
  /** Default 3000. */
  port?: string | number;
  dname?: string;
  user_data?: string;
  imageName?: string;
}

/** Metadata keys the platform writes; a caller's metadata merge may not change them. */
const MANAGED_KEYS = ['isPublic', 'enableSSH', 'floatingIp', 'privateIp', 'resourceLimits', 'domains'];

/** A readable, practically unique name for an instance created without `dname`: `<name>-<8 hex of its id>`. */
export function generatedLabel(name: string, id: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${slug || 'instance'}-${id.slice(0, 8)}`;
}

/**
 * The life of a compute instance: created in BUILD with its proxy host and
 * (when asked) its volume in one transaction with the outbox; the worker has
 * the provider's network assign its address, then boots it; delete moves it
 * to DELETING for the worker to tear down. The api's routes and the worker (a cluster's members) both
 * create through here.
 */
@Injectable()
export class InstanceLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogLookups,
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
    private readonly volumes: VolumeLifecycle,
    private readonly proxyHosts: ProxyHostLifecycle,
    private readonly quotas: ProjectQuotas,
  ) {}

  /**
   * `within` runs inside the create's transaction, after the row is written:
   * a cluster links its member there, so no instance is ever made without
   * its link (and a refusal from it makes none).
   */
  async create(spec: NewInstance, principal: Principal, within?: (manager: EntityManager, instanceId: string) => Promise<void>): Promise<Instance> {
    if (spec.volume) this.volumes.checkSize(spec.volume.size, 'volume.size');
    const port = spec.port === undefined ? 3000 : Number(spec.port);
    const requestedHost = spec.dname === undefined ? null : this.proxyHosts.hostname(spec.dname, 'dname');
    // One round of lookups; with several bad references the first in this order is reported.
    const [image, flavor, network, , securityGroupIds] = await allInOrder([
      this.catalog.requireImage(spec.image_id, 'image_id', principal.projectId),
      this.catalog.requireFlavor(spec.flavor_id, 'flavor_id'),
      this.catalog.requireNetwork(spec.network_id, 'network_id'),
      this.catalog.requireKeypair(spec.keypair_name, 'keypair_name'),
      this.catalog.requireSecurityGroups(spec.security_group_ids, spec.security_group_names),
    ]);

    const id = randomUUID();
    const hostname = requestedHost ?? this.proxyHosts.hostname(generatedLabel(spec.name, id), 'dname');
    const [instance, entries] = await this.proxyHosts.unique(hostname, () =>
      this.dataSource.transaction(async (manager) => {
        await manager.getRepository(Instance).save({
          id,
          projectId: principal.projectId,
          userId: principal.userId,
          name: spec.name,
          imageId: image.id,
          imageName: spec.imageName ?? null,
          flavorId: flavor.id,
          networkId: network.id,
          keypairName: spec.keypair_name,
          securityGroupIds,
          port,
          dname: spec.dname ?? null,
          userData: spec.user_data ?? null,
          // The worker's create job has the network assign it (metadata.privateIp then).
          address: null,
          status: 'BUILD',
          statusReason: null,
          generation: 1,
          metadata: { isPublic: 'false', enableSSH: 'false' },
          buildDeadline: new Date(Date.now() + this.config.INSTANCE_BUILD_DEADLINE_MS),
        });
        await within?.(manager, id);
        const jobs = [];
        // SPEC: `volume` creates a volume and attaches it; it attaches once the instance is laid out.
        if (spec.volume) {
          const [, volumeJob] = await this.volumes.insert(manager, principal, {
            name: spec.volume.name,
            sizeGb: spec.volume.size,
            description: `created with instance ${id}`,
            attachTo: id,
          });
          jobs.push(volumeJob);
        }
        // `dname` (or a generated name) becomes a proxy host for the instance port; metadata.domains lists it.
        const [, hostJob] = await this.proxyHosts.insert(manager, principal, id, hostname, port, true);
        jobs.push(hostJob);
        const saved = await manager.getRepository(Instance).findOneByOrFail({ id });
        // Last, after the inserts, so the counts include them and the locks are held only to the commit
        // (ProjectQuotas); the rank of the instance's job is its project's backlog.
        const [{ pending }] = await this.quotas.enforceAll(manager, principal.projectId, [
          ['instances', 1],
          ['proxy_hosts', 1],
        ]);
        jobs.unshift(await this.outbox.writeJob(manager, 'instance.create', id, { instanceId: id, generation: 1 }, pending));
        return [saved, jobs] as const;
      }),
    );
    this.outbox.dispatch(entries);
    return instance;
  }

  /** A page of the project's instances, newest first (keyset-page.ts). */
  list(principal: Principal, page: PageRequest): Promise<RowsPage<Instance>> {
    return keysetPage(this.dataSource, Instance, { projectId: principal.projectId }, page);
  }

  /** NotFound when it does not exist, Forbidden when it is another project's. */
  get(id: string, principal: Principal): Promise<Instance> {
    return findOwnedInstance(this.dataSource, id, principal);
  }

  /** Marks the instance DELETING and hands the teardown to the worker. Repeating it is harmless. */
  async delete(id: string, principal: Principal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.get(id, principal);
      if (row.status === 'DELETING') return;
      const next = row.generation + 1;
      const entry = await this.dataSource.transaction(async (manager) => {
        const moved = await compareAndSet(manager, INSTANCE_CAS, id, row.status, 'DELETING', row.generation, {
          generation: next,
        });
        return moved ? this.outbox.writeJob(manager, 'instance.delete', id, { instanceId: id, generation: next }) : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new Conflict(`instance ${id} is changing; try again`);
  }

  /**
   * Merges string values into the instance's metadata (DNS update-dns); the
   * keys the platform writes are refused. `instanceId` is the field naming it.
   */
  async mergeMetadata(instanceId: string, metadata: Record<string, string>, principal: Principal): Promise<{ instance_id: string; metadata: Record<string, string> }> {
    const managed = Object.keys(metadata).filter((k) => MANAGED_KEYS.includes(k));
    if (managed.length) throw new Invalid(managed.map((k) => ({ field: `metadata.${k}`, message: 'is managed by the platform' })));
    if (!UUID.test(instanceId)) throw new Invalid('instanceId', 'must be an instance id (UUID)');
    const instance = await this.get(instanceId, principal);
    const [rows] = await this.dataSource.query(`UPDATE instances SET metadata = metadata || $2::jsonb, updated_at = now() WHERE id = $1 RETURNING metadata`, [
      instance.id,
      JSON.stringify(metadata),
    ]);
    if (!rows.length) throw new NotFound(`instance ${instance.id} not found`); // deleted meanwhile
    return { instance_id: instance.id, metadata: rows[0].metadata };
  }
}
