import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { AppConfig, compareAndSet, DATABASE_CAS, databaseMemberKey, databaseServerKey, HA_MEMBERS, hotFindOne, ManagedDatabase } from '@stratus/core';
import { DATABASE_DRIVER, DatabaseDriver, LOCAL_HOOKS, LocalHooks, NETWORK_DRIVER, NetworkDriver } from '@stratus/providers';
import { QUEUES } from '@stratus/queue';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { OnFinalFailure } from '../jobs/final-failure';
import { withDriverErrors } from '../jobs/driver-errors';
import { assertHandlers, JobHandlers, runHandler } from '../jobs/job-handlers';
import { addressRequest } from '../jobs/network-address';
import { delayWhileNotReady, NotReadyYet, RecheckDelays } from '../jobs/not-ready';
import { INSTANCE_WORKER_OPTIONS } from '../jobs/worker-options';
import { ResourceTurns } from '../jobs/resource-turns';
import { PacketFilterSync } from '../security-groups/packet-filter.sync';
import { RouteListeners } from '../gateway/route-listeners';
import { memberFieldsOf, serverSpecOf } from './database-server-spec';
import { DatabasesReconciler } from './databases.reconciler';

/**
 * A starting server is looked at again after a fifth of its job's age,
 * between 10 ms and 1 s: most start in well under a second, and a probe is
 * one local connect.
 */
const START_RECHECK: RecheckDelays = { share: 0.2, minMs: 10, maxMs: 1_000 };

/** Provisions and removes managed database servers (every engine), one job per change of desired state. */
@Processor(QUEUES.databases, INSTANCE_WORKER_OPTIONS)
export class DatabasesProcessor extends WorkerHost implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DatabasesProcessor.name);

  private readonly handlers: JobHandlers<typeof QUEUES.databases> = {
    'database.create': ({ databaseId, generation }) => this.create(databaseId, generation),
    'database.delete': ({ databaseId, generation }) => this.delete(databaseId, generation),
    'database.rotate': ({ databaseId, generation }) => this.rotate(databaseId, generation),
  };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DATABASE_DRIVER) private readonly driver: DatabaseDriver,
    @Inject(NETWORK_DRIVER) private readonly network: NetworkDriver,
    private readonly reconciler: DatabasesReconciler,
    private readonly config: AppConfig,
    private readonly packetFilter: PacketFilterSync,
    private readonly routes: RouteListeners,
    private readonly turns: ResourceTurns,
    @Optional() @Inject(LOCAL_HOOKS) private readonly hooks?: LocalHooks,
  ) {
    super();
    assertHandlers(QUEUES.databases, this.handlers);
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.DATABASE_WORKER_CONCURRENCY;
    // Not awaited: the worker takes jobs while its spares start. Spares are the local provider's.
    void this.hooks?.keepDatabaseSpares(this.config.DATABASE_SPARES, {
      error: (engine, err) => this.logger.warn({ engine, err: err.message }, 'spare database server unavailable; creates start their own'),
      ready: (engine, spare) => this.logger.log({ engine, spare }, 'spare database server ready for a create to claim'),
      claimed: (engine, spare, database) => this.logger.log({ engine, spare, database }, 'spare database server claimed'),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.hooks?.closeDatabaseSpares();
  }

  process(job: Job, token?: string): Promise<unknown> {
    // Every step in the database's turn: a delete never overlaps a step that starts its server.
    return delayWhileNotReady(job, token, START_RECHECK, () => this.turns.database(job.data.databaseId, () => runHandler(this.handlers, job, token)));
  }

  /** Attempts exhausted on a retryable error: the server will not come up. */
  @OnFinalFailure()
  async onFailed(job: Job, err: Error): Promise<void> {
    if (job.name !== 'database.create') return;
    const { databaseId, generation } = job.data;
    await compareAndSet(this.dataSource.manager, DATABASE_CAS, databaseId, 'provisioning', 'error', generation, {
      statusReason: `provisioning failed after ${job.attemptsMade} attempts: ${err.message}`,
    });
  }

  private async create(id: number, generation: number): Promise<void> {
    // A hot read: the job is on the path from POST to ready that clients wait on.
    const row = await hotFindOne(this.dataSource, ManagedDatabase, { id });
    // Duplicate or late delivery: the row has moved on, nothing to do.
    if (!row || row.status !== 'provisioning' || row.generation !== generation) return;
    const address = await this.assignAddress(row);
    if (address === null) return;
    const memberAddresses = row.ha ? await this.assignMemberAddresses(row) : [];
    if (memberAddresses === null) return;
    // The filter refuses pool addresses it does not know: the server's goes in
    // before it first starts, or instances could not reach it until the next
    // sweep. Once is enough: a job that comes back to look finds it there.
    if (!(await this.driver.observe(databaseServerKey(row)))) {
      const servers = [{ key: databaseServerKey(row), address }, ...memberAddresses.map((a, n) => ({ key: databaseMemberKey(row, n), address: a }))];
      for (const server of servers) await this.packetFilter.admit({ ...server, uid: null, groupIds: row.securityGroupIds });
      // The servers of an ha database reach one another only once a whole load has them as peers (admit
      // lets an address in, nothing out): one that starts before backs off for up to minutes (etcd's gateway).
      if (row.ha) await this.packetFilter.sync();
    }
    const observed = await withDriverErrors(
      () => this.driver.ensureRunning(serverSpecOf({ ...row, memberAddresses }, address)),
      (reason) => compareAndSet(this.dataSource.manager, DATABASE_CAS, id, 'provisioning', 'error', generation, { statusReason: reason }),
    );
    if (!observed.ready) {
      // A step worth telling (a package being installed) shows while it lasts; a plain start does not.
      if (observed.step && observed.step !== row.statusReason) {
        await this.dataSource.getRepository(ManagedDatabase).update({ id, status: 'provisioning', generation }, { statusReason: observed.step });
      }
      throw new NotReadyYet(databaseServerKey(row));
    }
    // Published only now: a floating_ip always answers.
    const moved = await compareAndSet(this.dataSource.manager, DATABASE_CAS, id, 'provisioning', 'ready', generation, {
      floatingIp: address,
      statusReason: null,
      ...memberFieldsOf({ ...row, members: null }, observed),
    });
    if (!moved) await this.reconciler.removeIfUnwanted(row);
  }

  /**
   * The server's address from the network driver (the same one on every
   * repeat of the job), written to the row before the server is laid out on
   * it. A full network ends the server in error with a reason that names it.
   * null when the row moved on meanwhile (deleted, or failed): the job has
   * nothing left to do, and the address goes back unless the row took it.
   */
  private async assignAddress(row: ManagedDatabase): Promise<string | null> {
    const { id, generation } = row;
    const key = databaseServerKey(row);
    const address = await withDriverErrors(
      async () => this.network.ensureAddress(await addressRequest(this.dataSource, key, row.networkId, row.engine)),
      (reason) => compareAndSet(this.dataSource.manager, DATABASE_CAS, id, 'provisioning', 'error', generation, { statusReason: reason }),
    );
    if (row.address === address) return address;
    const [written] = await this.dataSource.query(
      `UPDATE managed_databases SET address = $2, updated_at = now() WHERE id = $1 AND status = 'provisioning' AND generation = $3 RETURNING 1`,
      [id, address, generation],
    );
    if (written.length) return address;
    const now = await this.dataSource.getRepository(ManagedDatabase).findOneBy({ id });
    if (now?.address !== address) await this.network.releaseAddress(key);
    return null;
  }

  /**
   * An ha database's member addresses (HA_MEMBERS of them, keys derived from
   * the server's), from the network like the server's own and written to the
   * row together, before any member is laid out. null when the row moved on
   * meanwhile; the addresses then go back unless the row took them.
   */
  private async assignMemberAddresses(row: ManagedDatabase): Promise<string[] | null> {
    const { id, generation } = row;
    const keys = Array.from({ length: HA_MEMBERS }, (_, n) => databaseMemberKey(row, n));
    const addresses = await withDriverErrors(
      async () => {
        const got: string[] = [];
        for (const key of keys) got.push(await this.network.ensureAddress(await addressRequest(this.dataSource, key, row.networkId, row.engine)));
        return got;
      },
      (reason) => compareAndSet(this.dataSource.manager, DATABASE_CAS, id, 'provisioning', 'error', generation, { statusReason: reason }),
    );
    if (addresses.join() === row.memberAddresses.join()) return addresses;
    const [written] = await this.dataSource.query(
      `UPDATE managed_databases SET member_addresses = $2, updated_at = now() WHERE id = $1 AND status = 'provisioning' AND generation = $3 RETURNING 1`,
      [id, addresses, generation],
    );
    if (written.length) return addresses;
    const now = await this.dataSource.getRepository(ManagedDatabase).findOneBy({ id });
    if (now?.memberAddresses.join() !== addresses.join()) for (const key of keys) await this.network.releaseAddress(key);
    return null;
  }

  /**
   * A reset-password: the spec now carries the new verifier, and the
   * driver's ensureRunning makes a running server take it (in place where
   * the engine can, else by a restart); the row stops saying pending once
   * the server is ready with it. A server that cannot take it is an error.
   */
  private async rotate(id: number, generation: number): Promise<void> {
    const row = await hotFindOne(this.dataSource, ManagedDatabase, { id });
    if (!row || row.status !== 'ready' || row.generation !== generation || !row.passwordPending || row.address === null) return;
    const observed = await withDriverErrors(
      () => this.driver.ensureRunning(serverSpecOf(row, row.address!)),
      (reason) => compareAndSet(this.dataSource.manager, DATABASE_CAS, id, 'ready', 'error', generation, { statusReason: `the new password could not be applied: ${reason}` }),
    );
    if (!observed.ready) throw new NotReadyYet(databaseServerKey(row));
    await this.dataSource.query(`UPDATE managed_databases SET password_pending = false, updated_at = now() WHERE id = $1 AND generation = $2`, [id, generation]);
    this.logger.log({ database: databaseServerKey(row) }, 'database password reset');
  }

  private async delete(id: number, generation: number): Promise<void> {
    const row = await this.dataSource.getRepository(ManagedDatabase).findOneBy({ id });
    if (!row || row.status !== 'deleting' || row.generation !== generation) return;
    const key = databaseServerKey(row);
    await this.driver.delete(key);
    // Its routes and their listeners go first: no port may still forward to
    // the address once it is given up (the trigger below would remove the
    // routes, but their listeners would wait for the outbox relay).
    await this.routes.removeRoutesTo(key);
    // The row gives the address up before the network has it back: the
    // routes to it go in this statement (trigger), so the next resource
    // given it, maybe another project's, inherits none.
    if (row.address || row.memberAddresses.length) {
      await this.dataSource.query(`UPDATE managed_databases SET address = NULL, floating_ip = NULL, member_addresses = '{}' WHERE id = $1 AND status = 'deleting'`, [id]);
    }
    await this.network.releaseAddress(key);
    if (row.ha) for (let n = 0; n < HA_MEMBERS; n++) await this.network.releaseAddress(databaseMemberKey(row, n));
    await this.dataSource.getRepository(ManagedDatabase).delete({ id, status: 'deleting' });
    this.logger.log({ database: key }, 'database server deleted');
  }
}
