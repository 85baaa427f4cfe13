import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CatalogLookups } from '../catalog/catalog.lookups';
import { AppConfig } from '../config/app.config';
import { isUniqueViolation } from '../database/constraint-violation';
import { hotFindOne, hotQuery, insertTogetherIn } from '../database/hot-queries';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { allInOrder } from '../errors/all-in-order';
import { Conflict, Forbidden, NotFound } from '../errors/domain-errors';
import { JobOutbox } from '../outbox/job-outbox';
import { OutboxEntry } from '../outbox/outbox.entity';
import { Principal } from '../projects/projects.service';
import { ProjectQuotas } from '../quotas/project-quotas';
import { QuotaName } from '../quotas/quota.rules';
import { generateDatabasePassword, scramSha256Verifier, sha256Hex } from '../secrets/password-verifiers';
import { compareAndSet } from '../status/compare-and-set';
import { DATABASE_CAS } from './database-cas';
import { DatabaseEngine, ENGINE_PORTS } from './database-engines';
import { databaseServerKey, ManagedDatabase } from './managed-database.entity';

/** The request each collection's create turns into, defaults applied. */
export interface DatabaseRequest {
  name: string;
  dbName: string | null;
  dbUser: string | null;
  password: string | undefined;
  version: string | null;
  extensions: string[];
  superuser: boolean;
  ha: boolean;
  flavorId: string;
  networkId: string;
  keypairName: string;
  securityGroupNames: string[] | undefined;
}

/** What each engine is called in messages. */
export const ENGINE_NOUN: Readonly<Record<DatabaseEngine, string>> = {
  postgres: 'database',
  redis: 'cache instance',
  clickhouse: 'analytics instance',
};

/** The quota each engine's servers count against. */
const ENGINE_QUOTA: Readonly<Record<DatabaseEngine, QuotaName>> = { postgres: 'databases', redis: 'caches', clickhouse: 'analytics' };

const NEXT_ID = `SELECT nextval(pg_get_serial_sequence('managed_databases', 'id'))::int AS id`;

export interface CreatedDatabase {
  row: ManagedDatabase;
  /** Plaintext, for the create response only. */
  password: string;
}

/**
 * The life the three managed database collections share: validate, store
 * the spec with only the password's verifier and queue the provisioning
 * job (ids only) with it (the job has the network assign the address), and
 * answer with the password once; delete moves the server to deleting for the worker to tear down.
 */
@Injectable()
export class ManagedDatabaseLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogLookups,
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
    private readonly quotas: ProjectQuotas,
  ) {}

  async create(engine: DatabaseEngine, req: DatabaseRequest, principal: Principal): Promise<CreatedDatabase> {
    const password = req.password ?? generateDatabasePassword();
    // The lookups, the verifier and the row's id are independent: one round of waiting.
    // Failures are reported in this order whatever finishes first.
    const [flavor, network, , securityGroupIds, passwordVerifier, id] = await allInOrder([
      this.catalog.requireFlavor(req.flavorId, 'flavor_id'),
      this.catalog.requireNetwork(req.networkId, 'network_id'),
      this.catalog.requireKeypair(req.keypairName, 'keypair_name'),
      this.catalog.requireSecurityGroups(undefined, req.securityGroupNames),
      engine === 'postgres' ? scramSha256Verifier(password) : Promise.resolve(sha256Hex(password)),
      this.nextId(),
    ]);

    // The server's key names its job (and its address on the provider), so it is known before the insert.
    const key = databaseServerKey({ engine, id });
    try {
      // The row, then the quota's count (which includes it), then the job ranked by the count: one transaction.
      const [row, entry] = await this.dataSource.transaction(async (manager) => {
        const [inserted] = await insertTogetherIn(manager, [
          {
            entity: ManagedDatabase,
            values: {
              id,
              engine,
              projectId: principal.projectId,
              userId: principal.userId,
              name: req.name,
              dbName: req.dbName,
              dbUser: req.dbUser,
              version: req.version,
              extensions: req.extensions,
              superuser: req.superuser,
              ha: req.ha,
              passwordVerifier,
              flavorId: flavor.id,
              networkId: network.id,
              keypairName: req.keypairName,
              securityGroupIds,
              // The worker's create job has the network assign it.
              address: null,
              floatingIp: null,
              port: ENGINE_PORTS[engine],
              status: 'provisioning',
              statusReason: null,
              generation: 1,
              provisionDeadline: new Date(Date.now() + this.config.DATABASE_PROVISION_DEADLINE_MS),
            },
          },
        ]);
        const { pending } = await this.quotas.enforce(manager, principal.projectId, ENGINE_QUOTA[engine], 1);
        const [job] = await insertTogetherIn(manager, [{ entity: OutboxEntry, values: this.outbox.jobEntry('database.create', key, { databaseId: id, generation: 1 }, pending) }]);
        return [inserted, job] as const;
      });
      this.outbox.dispatch([entry]);
      return { row, password };
    } catch (err) {
      // A live server of that name in the project: the partial unique index is the one check, races included.
      if (isUniqueViolation(err, 'live_name')) throw new Conflict(`name: a ${ENGINE_NOUN[engine]} named "${req.name}" already exists in this project`);
      throw err;
    }
  }

  /** A page of the project's servers of this engine, newest first (keyset-page.ts). */
  list(engine: DatabaseEngine, principal: Principal, page: PageRequest): Promise<RowsPage<ManagedDatabase>> {
    return keysetPage(this.dataSource, ManagedDatabase, { projectId: principal.projectId, engine }, page);
  }

  /**
   * NotFound when it does not exist in this collection, Forbidden when it is
   * another project's. Clients poll this until `ready`, so it is a hot read.
   */
  async get(engine: DatabaseEngine, id: string, principal: Principal): Promise<ManagedDatabase> {
    const row = /^\d{1,9}$/.test(id) ? await hotFindOne(this.dataSource, ManagedDatabase, { id: Number(id), engine }) : undefined;
    if (!row) throw new NotFound(`${ENGINE_NOUN[engine]} ${id} not found`);
    if (row.projectId !== principal.projectId) throw new Forbidden(`${ENGINE_NOUN[engine]} ${id} belongs to another project`);
    return row;
  }

  /** Marks the server deleting and hands the teardown to the worker. Repeating it is harmless. */
  async delete(engine: DatabaseEngine, id: string, principal: Principal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.get(engine, id, principal);
      if (row.status === 'deleting') return;
      const next = row.generation + 1;
      const entry = await this.dataSource.transaction(async (manager) => {
        const moved = await compareAndSet(manager, DATABASE_CAS, row.id, row.status, 'deleting', row.generation, { generation: next });
        return moved ? this.outbox.writeJob(manager, 'database.delete', databaseServerKey(row), { databaseId: row.id, generation: next }) : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new Conflict(`${ENGINE_NOUN[engine]} ${id} is changing; try again`);
  }

  private async nextId(): Promise<number> {
    const [{ id }] = await hotQuery<{ id: number }>(this.dataSource, NEXT_ID, []);
    return id;
  }
}
