import { ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import {
  AddressLease,
  allInOrder,
  AppConfig,
  CatalogLookups,
  compareAndSet,
  DATABASE_CAS,
  DatabaseEngine,
  databaseServerKey,
  ENGINE_PORTS,
  generateDatabasePassword,
  hotFindOne,
  hotQuery,
  insertTogether,
  isUniqueViolation,
  ManagedDatabase,
  OutboxEntry,
  Principal,
  scramSha256Verifier,
  sha256Hex,
  withFreeAddress,
} from '@stratus/core';
import { outboxEntryOf, OutboxService, resourceJob } from '@stratus/queue';
import { DataSource } from 'typeorm';
import { DatabaseRequest } from './managed-database-fields.dto';

/** What each engine is called in messages. */
export const ENGINE_NOUN: Readonly<Record<DatabaseEngine, string>> = {
  postgres: 'database',
  redis: 'cache instance',
  clickhouse: 'analytics instance',
};

const NEXT_ID = `SELECT nextval(pg_get_serial_sequence('managed_databases', 'id'))::int AS id`;

export interface CreatedDatabase {
  row: ManagedDatabase;
  /** Plaintext, for the create response only. */
  password: string;
}

/**
 * The three managed database collections share one life: validate, store
 * the spec with only the password's verifier, queue the provisioning job
 * (ids only), and answer with the password once.
 */
@Injectable()
export class DatabasesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogLookups,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
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

    // The server's key names its lease and its job, so it is known before the insert.
    const key = databaseServerKey({ engine, id });
    const job = resourceJob('database.create', key, { databaseId: id, generation: 1 });
    try {
      // Row, lease and outbox entry in one statement: the create is one round trip to PostgreSQL.
      const [row, , entry] = await withFreeAddress(this.dataSource, network.cidr, (address) =>
        insertTogether(this.dataSource, [
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
              address,
              floatingIp: null,
              port: ENGINE_PORTS[engine],
              status: 'provisioning',
              statusReason: null,
              generation: 1,
              provisionDeadline: new Date(Date.now() + this.config.DATABASE_PROVISION_DEADLINE_MS),
            },
          },
          { entity: AddressLease, values: { address, resourceKind: engine, resourceId: key } },
          { entity: OutboxEntry, values: outboxEntryOf(job) },
        ]),
      );
      this.outbox.dispatch([entry]);
      return { row, password };
    } catch (err) {
      // A live server of that name in the project: the partial unique index is the one check, races included.
      if (isUniqueViolation(err, 'live_name')) throw this.nameConflict(engine, req.name);
      throw err;
    }
  }

  list(engine: DatabaseEngine, principal: Principal): Promise<ManagedDatabase[]> {
    return this.dataSource.getRepository(ManagedDatabase).find({
      where: { engine, projectId: principal.projectId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /**
   * 404 when it does not exist in this collection, 403 when it is another
   * project's. Clients poll this until `ready`, so it is a hot read.
   */
  async get(engine: DatabaseEngine, id: string, principal: Principal): Promise<ManagedDatabase> {
    const row = /^\d{1,9}$/.test(id) ? await hotFindOne(this.dataSource, ManagedDatabase, { id: Number(id), engine }) : undefined;
    if (!row) throw new NotFoundException(`${ENGINE_NOUN[engine]} ${id} not found`);
    if (row.projectId !== principal.projectId) throw new ForbiddenException(`${ENGINE_NOUN[engine]} ${id} belongs to another project`);
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
        return moved
          ? this.outbox.write(manager, resourceJob('database.delete', databaseServerKey(row), { databaseId: row.id, generation: next }))
          : null;
      });
      if (entry) return this.outbox.dispatch([entry]);
    }
    throw new ConflictException(`${ENGINE_NOUN[engine]} ${id} is changing; try again`);
  }

  private async nextId(): Promise<number> {
    const [{ id }] = await hotQuery<{ id: number }>(this.dataSource, NEXT_ID, []);
    return id;
  }

  private nameConflict(engine: DatabaseEngine, name: string): ConflictException {
    return new ConflictException(`name: a ${ENGINE_NOUN[engine]} named "${name}" already exists in this project`);
  }
}
