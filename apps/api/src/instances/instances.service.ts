import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import {
  AppConfig,
  compareAndSet,
  Instance,
  INSTANCE_CAS,
  InstanceStatus,
  leaseAddress,
  Principal,
} from '@stratus/core';
import { OutboxService, resourceJob } from '@stratus/queue';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CatalogService } from '../catalog/catalog.service';
import { CreateInstanceDto } from './create-instance.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class InstancesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
  ) {}

  async create(dto: CreateInstanceDto, principal: Principal): Promise<Instance> {
    if (dto.volume) throw new BadRequestException('volume: creating a volume with an instance is not available yet');
    const [image, flavor, network] = await Promise.all([
      this.catalog.requireImage(dto.image_id, 'image_id'),
      this.catalog.requireFlavor(dto.flavor_id, 'flavor_id'),
      this.catalog.requireNetwork(dto.network_id, 'network_id'),
      this.catalog.requireKeypair(dto.keypair_name, 'keypair_name'),
    ]);
    const securityGroupIds = await this.catalog.requireSecurityGroups(dto.security_group_ids, dto.security_group_names);

    const [instance, entry] = await this.dataSource.transaction(async (manager) => {
      const id = randomUUID();
      const address = await leaseAddress(manager, network.cidr, 'instance', id);
      const row = await manager.getRepository(Instance).save({
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
        port: dto.port === undefined ? 3000 : Number(dto.port),
        dname: dto.dname ?? null,
        userData: dto.user_data ?? null,
        address,
        status: 'BUILD' as InstanceStatus,
        statusReason: null,
        generation: 1,
        metadata: { isPublic: 'false', enableSSH: 'false', privateIp: address },
        buildDeadline: new Date(Date.now() + this.config.INSTANCE_BUILD_DEADLINE_MS),
      });
      const job = await this.outbox.write(manager, resourceJob('instance.create', id, { instanceId: id, generation: 1 }));
      return [row, job] as const;
    });
    await this.outbox.dispatch([entry]);
    return instance;
  }

  list(principal: Principal): Promise<Instance[]> {
    return this.dataSource.getRepository(Instance).find({
      where: { projectId: principal.projectId },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** 404 when it does not exist, 403 when it is another project's. */
  async get(id: string, principal: Principal): Promise<Instance> {
    const row = UUID.test(id) ? await this.dataSource.getRepository(Instance).findOneBy({ id }) : null;
    if (!row) throw new NotFoundException(`instance ${id} not found`);
    if (row.projectId !== principal.projectId) throw new ForbiddenException(`instance ${id} belongs to another project`);
    return row;
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
