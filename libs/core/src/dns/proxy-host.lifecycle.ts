import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { isForeignKeyViolation, isUniqueViolation } from '../database/constraint-violation';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { Conflict, Invalid, NotFound } from '../errors/domain-errors';
import { RouteTargetChecks } from '../gateway/route-target.checks';
import { Instance } from '../instances/instance.entity';
import { findOwnedInstance, UUID } from '../instances/owned-instance';
import { JobOutbox } from '../outbox/job-outbox';
import { OutboxEntry } from '../outbox/outbox.entity';
import { projectScope } from '../projects/project-scope';
import { Principal } from '../projects/projects.service';
import { isHostname, refreshInstanceDomains } from './instance-domains';
import { ProxyHost } from './proxy-host.entity';
import { ProjectQuotas } from '../quotas/project-quotas';

/** A proxy host as SPEC.md's DNS create asks for it. */
export interface NewProxyHost {
  instanceId: string;
  forwardPort: number;
  /** Omitted: `<uuid>.<suffix>`. */
  domain?: string;
}

/** SPEC.md's `updateData`: the fields to change. */
export interface ProxyHostChanges {
  forwardPort?: number;
  domain?: string;
}

/**
 * The life of a proxy host: a public name the edge routes to a port of an
 * instance. Active on create: each change is answered once committed, with
 * the job (outbox, same transaction) that makes its load-balancer listener
 * as it now asks (`host.apply`, a new generation each time), enqueued after
 * commit; nothing waits for it, since an HTTP listener's Host map cannot
 * refuse a name. Every removal writes its listener's delete job (a
 * trigger, migration HostListeners). Each change keeps the instance's
 * `metadata.domains` in step.
 *
 * list, get, update and delete serve public endpoints (SPEC.md): without a
 * principal they reach every project's proxy hosts; with one, only its
 * project's, and another project's is NotFound like a missing one.
 */
@Injectable()
export class ProxyHostLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly targets: RouteTargetChecks,
    private readonly outbox: JobOutbox,
    private readonly quotas: ProjectQuotas,
  ) {}

  async create(spec: NewProxyHost, principal: Principal): Promise<ProxyHost> {
    // The request's own faults (Invalid) before what the lookup finds (NotFound, Forbidden).
    const hostname = spec.domain === undefined ? `${randomUUID()}.${this.config.DNS_DOMAIN_SUFFIX}` : this.hostname(spec.domain, 'domain');
    const instance = await this.instanceOf(spec.instanceId, principal, 'instanceId');
    await this.targets.instancePort(instance, spec.forwardPort, 'forwardPort');
    let row: ProxyHost;
    let job: OutboxEntry;
    try {
      [row, job] = await this.unique(hostname, () => this.dataSource.transaction((m) => this.insert(m, principal, instance.id, hostname, spec.forwardPort)));
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new NotFound(`instance ${instance.id} not found`); // deleted meanwhile
      throw err;
    }
    this.outbox.dispatch([job]);
    return row;
  }

  /**
   * Inside the caller's transaction (also instance create's, for its
   * `dname`): the row and the job that makes its listener, for the caller
   * to dispatch after commit. `countedByCaller`: the caller enforces the
   * proxy_hosts quota itself, after this insert and before its commit.
   */
  async insert(m: EntityManager, principal: Principal, instanceId: string, hostname: string, forwardPort: number, countedByCaller = false): Promise<[ProxyHost, OutboxEntry]> {
    const row = await m.getRepository(ProxyHost).save({
      hostname,
      projectId: principal.projectId,
      userId: principal.userId,
      instanceId,
      forwardPort,
      generation: 1,
    });
    await refreshInstanceDomains(m, instanceId);
    // An instance create counts it with its own quota, under one lock statement (InstanceLifecycle.create).
    if (!countedByCaller) await this.quotas.enforce(m, principal.projectId, 'proxy_hosts', 1);
    return [row, await this.outbox.writeJob(m, 'host.apply', row.id, { proxyHostId: row.id, generation: row.generation })];
  }

  /** A page of the proxy hosts in scope, newest first (keyset-page.ts); no status or name to filter by. */
  list(principal: Principal | undefined, page: Omit<PageRequest, 'status' | 'name'>): Promise<RowsPage<ProxyHost>> {
    return keysetPage(this.dataSource, ProxyHost, projectScope(principal), page);
  }

  async get(id: string, principal: Principal | undefined): Promise<ProxyHost> {
    if (!UUID.test(id)) throw new Invalid('proxyHostId', 'must be a UUID');
    const row = await this.dataSource.getRepository(ProxyHost).findOneBy({ id, ...projectScope(principal) });
    if (!row) throw new NotFound(`proxy host ${id} not found`);
    return row;
  }

  async update(id: string, updateData: ProxyHostChanges, principal: Principal | undefined): Promise<ProxyHost> {
    const row = await this.get(id, principal);
    if (updateData.forwardPort === undefined && updateData.domain === undefined) {
      throw new Invalid('updateData', 'give at least one of forwardPort, domain');
    }
    const hostname = updateData.domain === undefined ? row.hostname : this.hostname(updateData.domain, 'updateData.domain');
    // A proxy host that moved to a cluster forwards to its balancer, at the port every member serves.
    if (updateData.forwardPort !== undefined && row.instanceId === null) {
      throw new Invalid('updateData.forwardPort', `proxy host ${id} forwards to cluster ${row.clusterId}'s load balancer, on the cluster's port`);
    }
    if (updateData.forwardPort !== undefined && row.instanceId !== null) {
      const instance = await this.dataSource.getRepository(Instance).findOneBy({ id: row.instanceId });
      if (!instance) throw new NotFound(`proxy host ${id} not found`); // its instance, and so it, deleted meanwhile
      await this.targets.instancePort(instance, updateData.forwardPort, 'updateData.forwardPort');
    }
    const [updated, job] = await this.unique(hostname, () =>
      this.dataSource.transaction(async (m) => {
        const changed = await m.getRepository(ProxyHost).update({ id }, { hostname, forwardPort: updateData.forwardPort ?? row.forwardPort, generation: () => 'generation + 1' });
        if (!changed.affected) throw new NotFound(`proxy host ${id} not found`); // deleted meanwhile
        if (row.instanceId) await refreshInstanceDomains(m, row.instanceId);
        const now = await m.getRepository(ProxyHost).findOneByOrFail({ id });
        return [now, await this.outbox.writeJob(m, 'host.apply', id, { proxyHostId: id, generation: now.generation })] as const;
      }),
    );
    this.outbox.dispatch([job]);
    return updated;
  }

  async delete(id: string, principal: Principal | undefined): Promise<void> {
    const row = await this.get(id, principal);
    const jobs = await this.dataSource.transaction(async (m) => {
      await m.getRepository(ProxyHost).delete({ id });
      if (row.instanceId) await refreshInstanceDomains(m, row.instanceId);
      // The trigger wrote its listener's delete job: enqueued now rather than at the relay's next pass.
      const jobId = this.outbox.jobEntry('host.delete', id, { proxyHostId: id, generation: 1 }).jobId;
      return m.getRepository(OutboxEntry).findBy({ jobId, dispatchedAt: IsNull() });
    });
    if (jobs.length) this.outbox.dispatch(jobs);
  }

  /**
   * A requested name: a bare label gets the suffix; a full name must be
   * under the suffix (other domains would need proof of ownership).
   */
  hostname(input: string, field: string): string {
    const suffix = this.config.DNS_DOMAIN_SUFFIX;
    let name = input.trim().toLowerCase().replace(/\.$/, '');
    if (!name.includes('.')) name = `${name}.${suffix}`;
    if (!isHostname(name)) throw new Invalid(field, 'must be a DNS name (letters, digits, hyphens, dots)');
    if (!name.endsWith(`.${suffix}`)) throw new Invalid(field, `must be under .${suffix}`);
    return name;
  }

  /** Runs a write whose unique hostname may be taken: Conflict instead of a constraint error. */
  async unique<T>(hostname: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict(`the name ${hostname} is already taken`);
      throw err;
    }
  }

  /** The instance a request names: Invalid if not even an id, else as findOwnedInstance. */
  private async instanceOf(id: string, principal: Principal, field: string): Promise<Instance> {
    if (!UUID.test(id)) throw new Invalid(field, 'must be an instance id (UUID)');
    return findOwnedInstance(this.dataSource, id, principal);
  }
}
