import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CatalogLookups } from '../catalog/catalog.lookups';
import { AppConfig } from '../config/app.config';
import { isUniqueViolation } from '../database/constraint-violation';
import { hotFindOne, hotQuery, insertTogetherIn } from '../database/hot-queries';
import { intId } from '../database/int-id';
import { keysetPage, PageRequest, RowsPage } from '../database/keyset-page';
import { allInOrder } from '../errors/all-in-order';
import { Conflict, Forbidden, NotFound } from '../errors/domain-errors';
import { JobOutbox } from '../outbox/job-outbox';
import { OutboxEntry } from '../outbox/outbox.entity';
import { Principal } from '../projects/projects.service';
import { ProjectQuotas } from '../quotas/project-quotas';
import { QuotaName } from '../quotas/quota.rules';
import { engineVerifier, generateDatabasePassword } from '../secrets/password-verifiers';
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
  mariadb: 'relational database',
  mysql: 'relational database',
};

/** The quota each engine's servers count against. */
const ENGINE_QUOTA: Readonly<Record<DatabaseEngine, QuotaName>> = {
  postgres: 'databases',
  redis: 'caches',
  clickhouse: 'analytics',
  mariadb: 'relational_databases',
  mysql: 'relational_databases',
};

/** The engines one collection serves: one for each, except /v1/relational-databases (mariadb and mysql). */
export type EngineSet = readonly [DatabaseEngine, ...DatabaseEngine[]];

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
      engineVerifier(engine, password),
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

  /** A page of the project's servers of these engines, newest first (keyset-page.ts). */
  list(engines: EngineSet, principal: Principal, page: PageRequest): Promise<RowsPage<ManagedDatabase>> {
    return keysetPage(this.dataSource, ManagedDatabase, { projectId: principal.projectId, engine: engines.length === 1 ? engines[0] : [...engines] }, page);
  }

  /**
   * NotFound when it does not exist in this collection, Forbidden when it is
   * another project's. Clients poll this until `ready`, so it is a hot read.
   */
  async get(engines: EngineSet, id: string, principal: Principal): Promise<ManagedDatabase> {
    const rowId = intId(id);
    const row = rowId === null ? undefined : await hotFindOne(this.dataSource, ManagedDatabase, { id: rowId });
    if (!row || !engines.includes(row.engine)) throw new NotFound(`${ENGINE_NOUN[engines[0]]} ${id} not found`);
    if (row.projectId !== principal.projectId) throw new Forbidden(`${ENGINE_NOUN[engines[0]]} ${id} belongs to another project`);
    return row;
  }

  /** Marks the server deleting and hands the teardown to the worker. Repeating it is harmless. */
  async delete(engines: EngineSet, id: string, principal: Principal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.get(engines, id, principal);
      if (row.status === 'deleting') return;
      const next = row.generation + 1;
      const entry = await this.dataSource.transaction(async (manager) => {
        const moved = await compareAndSet(manager, DATABASE_CAS, row.id, row.status, 'deleting', row.generation, { generation: next });
        return moved ? this.outbox.writeJob(manager, 'database.delete', databaseServerKey(row), { databaseId: row.id, generation: next }) : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new Conflict(`${ENGINE_NOUN[engines[0]]} ${id} is changing; try again`);
  }

  /**
   * A new password for a ready server: its verifier replaces the old one in
   * the row (a new generation, so a late job of the old one changes nothing)
   * with `password_pending`, and the database.rotate job has the server take
   * it. Answers once the server holds it (the old password refused from
   * then on), or after `waitMs` with `applied: false`: the job still runs,
   * and the password returned is the only one the server will take, so it
   * is returned either way (holding it back would lock the owner out).
   */
  async resetPassword(engines: EngineSet, id: string, principal: Principal, waitMs: number): Promise<CreatedDatabase & { applied: boolean }> {
    const row = await this.get(engines, id, principal);
    if (row.status !== 'ready') {
      throw new Conflict(`${ENGINE_NOUN[row.engine]} ${id} is ${row.status}: a password can be reset once it is ready`);
    }
    const password = generateDatabasePassword();
    const passwordVerifier = await engineVerifier(row.engine, password);
    const next = row.generation + 1;
    const entry = await this.dataSource.transaction(async (manager) => {
      const [, moved] = await manager.query(
        `UPDATE managed_databases SET password_verifier = $4, password_pending = true, generation = $3, updated_at = now()
          WHERE id = $1 AND status = 'ready' AND generation = $2`,
        [row.id, row.generation, next, passwordVerifier],
      );
      return moved ? this.outbox.writeJob(manager, 'database.rotate', databaseServerKey(row), { databaseId: row.id, generation: next }) : null;
    });
    if (!entry) throw new Conflict(`${ENGINE_NOUN[row.engine]} ${id} is changing; try again`);
    this.outbox.dispatch([entry]);
    const applied = await this.waitForPassword(row.id, next, waitMs);
    const now = (await this.dataSource.getRepository(ManagedDatabase).findOneBy({ id: row.id })) ?? row;
    return { row: now, password, applied };
  }

  /** True once the server took generation `generation`'s verifier; false when `waitMs` passed first or the row moved on. */
  private async waitForPassword(id: number, generation: number, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    let interval = 10;
    for (;;) {
      const [row] = await hotQuery<{ password_pending: boolean; generation: number }>(this.dataSource, `SELECT password_pending, generation FROM managed_databases WHERE id = $1`, [
        id,
      ]);
      if (!row || row.generation !== generation) return false;
      if (!row.password_pending) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, interval));
      interval = Math.min(200, interval * 2);
    }
  }

  private async nextId(): Promise<number> {
    const [{ id }] = await hotQuery<{ id: number }>(this.dataSource, NEXT_ID, []);
    return id;
  }
}
