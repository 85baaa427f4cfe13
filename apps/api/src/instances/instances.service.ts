import { ConflictException, Injectable } from '@nestjs/common';
import {
  AppConfig,
  compareAndSet,
  Instance,
  INSTANCE_CAS,
  leaseAddress,
  Principal,
} from '@stratus/core';
import { OutboxService, resourceJob } from '@stratus/queue';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CatalogService } from '../catalog/catalog.service';
import { DnsService } from '../dns/dns.service';
import { allInOrder } from '../http/all-in-order';
import { VolumesService } from '../volumes/volumes.service';
import { CreateInstanceDto } from './create-instance.dto';
import { findOwnedInstance } from './owned-instance';

/** A readable, practically unique name for an instance created without `dname`: `<name>-<8 hex of its id>`. */
function generatedLabel(name: string, id: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `${slug || 'instance'}-${id.slice(0, 8)}`;
}


@Injectable()
export class InstancesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
    private readonly volumes: VolumesService,
    private readonly dns: DnsService,
  ) {}

  async create(dto: CreateInstanceDto, principal: Principal): Promise<Instance> {
    if (dto.volume) this.volumes.checkSize(dto.volume.size, 'volume.size');
    const port = dto.port === undefined ? 3000 : Number(dto.port);
    const requestedHost = dto.dname === undefined ? null : this.dns.hostname(dto.dname, 'dname');
    // One round of lookups; with several bad references the first in this order is reported.
    const [image, flavor, network, , securityGroupIds] = await allInOrder([
      this.catalog.requireImage(dto.image_id, 'image_id'),
      this.catalog.requireFlavor(dto.flavor_id, 'flavor_id'),
      this.catalog.requireNetwork(dto.network_id, 'network_id'),
      this.catalog.requireKeypair(dto.keypair_name, 'keypair_name'),
      this.catalog.requireSecurityGroups(dto.security_group_ids, dto.security_group_names),
    ]);

    const id = randomUUID();
    const hostname = requestedHost ?? this.dns.hostname(generatedLabel(dto.name, id), 'dname');
    const [instance, entries] = await this.dns.unique(hostname, () => this.dataSource.transaction(async (manager) => {
      const address = await leaseAddress(manager, network.cidr, 'instance', id);
      await manager.getRepository(Instance).save({
        id,
        projectId: principal.projectId,
        userId: principal.userId,
        name: dto.name,
        imageId: image.id,
        imageName: dto.imageName ?? null,
        flavorId: flavor.id,
        networkId: network.id,
        keypairName: dto.keypair_name,
        securityGroupIds,
        port,
        dname: dto.dname ?? null,
        userData: dto.user_data ?? null,
        address,
        status: 'BUILD',
        statusReason: null,
        generation: 1,
        metadata: { isPublic: 'false', enableSSH: 'false', privateIp: address },
        buildDeadline: new Date(Date.now() + this.config.INSTANCE_BUILD_DEADLINE_MS),
      });
      const job = await this.outbox.write(manager, resourceJob('instance.create', id, { instanceId: id, generation: 1 }));
      const jobs = [job];
      // SPEC: `volume` creates a volume and attaches it; it attaches once the instance is laid out.
      if (dto.volume) {
        const [, volumeJob] = await this.volumes.insert(manager, principal, {
          name: dto.volume.name,
          sizeGb: dto.volume.size,
          description: `created with instance ${id}`,
          attachTo: id,
        });
        jobs.push(volumeJob);
      }
      // `dname` (or a generated name) becomes a proxy host for the instance port; metadata.domains lists it.
      await this.dns.insert(manager, principal, id, hostname, port);
      const saved = await manager.getRepository(Instance).findOneByOrFail({ id });
      return [saved, jobs] as const;
    }));
    this.outbox.dispatch(entries);
    return instance;
  }

  list(principal: Principal): Promise<Instance[]> {
    return this.dataSource.getRepository(Instance).find({
      where: { projectId: principal.projectId },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** 404 when it does not exist, 403 when it is another project's. */
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
        return moved ? this.outbox.write(manager, resourceJob('instance.delete', id, { instanceId: id, generation: next })) : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new ConflictException(`instance ${id} is changing; try again`);
  }
}
