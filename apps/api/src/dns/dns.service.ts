import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig, Instance, isForeignKeyViolation, isHostname, isUniqueViolation, notifyEdge, Principal, ProxyHost, refreshInstanceDomains } from '@stratus/core';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { projectScope } from '../auth/project-scope';
import { RouteTargets } from '../gateway/route-target';
import { findOwnedInstance, UUID } from '../instances/owned-instance';
import { CreateProxyHostDto, ProxyHostUpdateFields, UpdateDnsDto } from './dns.dto';


/** Metadata keys the platform writes; update-dns may not change them. */
const MANAGED_KEYS = ['isPublic', 'enableSSH', 'floatingIp', 'privateIp', 'resourceLimits', 'domains'];

/**
 * Proxy hosts: public names the edge routes to a port of an instance. Each
 * change notifies the edge in its transaction and keeps the instance's
 * `metadata.domains` in step.
 */
@Injectable()
export class DnsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly targets: RouteTargets,
  ) {}

  get httpPort(): number {
    return this.config.EDGE_HTTP_PORT;
  }

  async create(dto: CreateProxyHostDto, principal: Principal): Promise<ProxyHost> {
    // The request's own faults (400) before what the lookup finds (404, 403).
    const hostname = dto.domain === undefined ? `${randomUUID()}.${this.config.DNS_DOMAIN_SUFFIX}` : this.hostname(dto.domain, 'domain');
    const instance = await this.instanceOf(dto.instanceId, principal, 'instanceId');
    await this.targets.instancePort(instance, dto.forwardPort, 'forwardPort');
    try {
      return await this.unique(hostname, () =>
        this.dataSource.transaction((m) => this.insert(m, principal, instance.id, hostname, dto.forwardPort)),
      );
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new NotFoundException(`instance ${instance.id} not found`); // deleted meanwhile
      throw err;
    }
  }

  /** Inside the caller's transaction (also used by instance create with `dname`). */
  async insert(m: EntityManager, principal: Principal, instanceId: string, hostname: string, forwardPort: number): Promise<ProxyHost> {
    const row = await m.getRepository(ProxyHost).save({
      hostname,
      projectId: principal.projectId,
      userId: principal.userId,
      instanceId,
      forwardPort,
    });
    await refreshInstanceDomains(m, instanceId);
    await notifyEdge(m, 'hosts');
    return row;
  }

  async updateDns(dto: UpdateDnsDto, principal: Principal): Promise<{ instance_id: string; metadata: Record<string, string> }> {
    const managed = Object.keys(dto.metadata).filter((k) => MANAGED_KEYS.includes(k));
    if (managed.length) throw new BadRequestException(managed.map((k) => `metadata.${k}: is managed by the platform`).join('; '));
    const instance = await this.instanceOf(dto.instanceId, principal, 'instanceId');
    const [rows] = await this.dataSource.query(
      `UPDATE instances SET metadata = metadata || $2::jsonb, updated_at = now() WHERE id = $1 RETURNING metadata`,
      [instance.id, JSON.stringify(dto.metadata)],
    );
    if (!rows.length) throw new NotFoundException(`instance ${instance.id} not found`); // deleted meanwhile
    return { instance_id: instance.id, metadata: rows[0].metadata };
  }

  /*
   * list, get, update and delete are public endpoints (SPEC.md): without a
   * principal they reach every project's proxy hosts; with one, only its
   * project's, and another project's answers as a missing one (404).
   */

  list(principal: Principal | undefined): Promise<ProxyHost[]> {
    return this.dataSource.getRepository(ProxyHost).find({ where: projectScope(principal), order: { createdAt: 'DESC', id: 'ASC' } });
  }

  async get(id: string, principal: Principal | undefined): Promise<ProxyHost> {
    if (!UUID.test(id)) throw new BadRequestException(`proxyHostId: must be a UUID`);
    const row = await this.dataSource.getRepository(ProxyHost).findOneBy({ id, ...projectScope(principal) });
    if (!row) throw new NotFoundException(`proxy host ${id} not found`);
    return row;
  }

  async update(id: string, fields: ProxyHostUpdateFields, principal: Principal | undefined): Promise<ProxyHost> {
    const row = await this.get(id, principal);
    if (fields.forwardPort === undefined && fields.domain === undefined) {
      throw new BadRequestException('updateData: give at least one of forwardPort, domain');
    }
    const hostname = fields.domain === undefined ? row.hostname : this.hostname(fields.domain, 'updateData.domain');
    if (fields.forwardPort !== undefined) {
      const instance = await this.dataSource.getRepository(Instance).findOneBy({ id: row.instanceId });
      if (!instance) throw new NotFoundException(`proxy host ${id} not found`); // its instance, and so it, deleted meanwhile
      await this.targets.instancePort(instance, fields.forwardPort, 'updateData.forwardPort');
    }
    return this.unique(hostname, () =>
      this.dataSource.transaction(async (m) => {
        const updated = await m.getRepository(ProxyHost).update({ id }, { hostname, forwardPort: fields.forwardPort ?? row.forwardPort });
        if (!updated.affected) throw new NotFoundException(`proxy host ${id} not found`); // deleted meanwhile
        await refreshInstanceDomains(m, row.instanceId);
        await notifyEdge(m, 'hosts');
        return m.getRepository(ProxyHost).findOneByOrFail({ id });
      }),
    );
  }

  async delete(id: string, principal: Principal | undefined): Promise<void> {
    const row = await this.get(id, principal);
    await this.dataSource.transaction(async (m) => {
      await m.getRepository(ProxyHost).delete({ id });
      await refreshInstanceDomains(m, row.instanceId);
      await notifyEdge(m, 'hosts');
    });
  }

  /**
   * A requested name: a bare label gets the suffix; a full name must be
   * under the suffix (other domains would need proof of ownership).
   */
  hostname(input: string, field: string): string {
    const suffix = this.config.DNS_DOMAIN_SUFFIX;
    let name = input.trim().toLowerCase().replace(/\.$/, '');
    if (!name.includes('.')) name = `${name}.${suffix}`;
    if (!isHostname(name)) throw new BadRequestException(`${field}: must be a DNS name (letters, digits, hyphens, dots)`);
    if (!name.endsWith(`.${suffix}`)) throw new BadRequestException(`${field}: must be under .${suffix}`);
    return name;
  }

  /** Runs a write whose unique hostname may be taken: 409 instead of a 500. */
  async unique<T>(hostname: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictException(`the name ${hostname} is already taken`);
      throw err;
    }
  }

  /** The instance a request names: missing 404 (400 if not even an id), another project's 403. */
  private async instanceOf(id: string, principal: Principal, field: string): Promise<Instance> {
    if (!UUID.test(id)) throw new BadRequestException(`${field}: must be an instance id (UUID)`);
    return findOwnedInstance(this.dataSource, id, principal);
  }
}
