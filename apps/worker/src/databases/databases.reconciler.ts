import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig, compareAndSet, countRepair, DATABASE_CAS, databaseServerKey, ManagedDatabase } from '@stratus/core';
import { DATABASE_DRIVER, DatabaseDriver, DriverError, LOCAL_HOOKS, LocalHooks, ObservedDatabaseServer } from '@stratus/providers';
import { QUEUES, resourceJob } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource, In } from 'typeorm';
import { ensureJob } from '../jobs/lost-jobs';
import { liveBatches } from '../jobs/live-batches';
import { ResourceTurns } from '../jobs/resource-turns';
import { WorkClock } from '../jobs/work-clock';
import { memberFieldsOf, serverSpecOf } from './database-server-spec';

/** The statuses a sweep looks at; error is left as it is (managed_databases_live indexes these). */
const LIVE_STATUSES = ['provisioning', 'ready', 'deleting'];

/**
 * Level-based repair of database servers: restarts a ready server that
 * died (its data is kept), fails provisioning past its deadline, and
 * re-enqueues jobs that Redis lost. Observing is all adoption takes after a
 * worker restart.
 */
@Injectable()
export class DatabasesReconciler {
  private readonly logger = new Logger(DatabasesReconciler.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DATABASE_DRIVER) private readonly driver: DatabaseDriver,
    @InjectQueue(QUEUES.databases) private readonly queue: Queue,
    private readonly config: AppConfig,
    private readonly turns: ResourceTurns,
    private readonly clock: WorkClock,
    @Optional() @Inject(LOCAL_HOOKS) hooks?: LocalHooks,
  ) {
    // The local provider says at once when a server exits; elsewhere the periodic sweep notices.
    hooks?.onDatabaseExit((key) => {
      const id = Number(key.slice(key.lastIndexOf('-') + 1));
      this.sweep([id]).catch((err) => this.logger.warn({ err: String(err), database: key }, 'exit reconcile failed'));
    });
  }

  /** Reconciles the given rows, or every live one. */
  async sweep(ids?: number[]): Promise<void> {
    if (ids) return this.reconcile(await this.dataSource.getRepository(ManagedDatabase).find({ where: { id: In(ids) } }));
    // A batch at a time (live-batches.ts): each costs the same however many rows there are.
    for await (const rows of liveBatches<ManagedDatabase>(this.dataSource, ManagedDatabase, LIVE_STATUSES)) await this.reconcile(rows);
  }

  private async reconcile(rows: ManagedDatabase[]): Promise<void> {
    for (const row of rows) {
      switch (row.status) {
        case 'ready':
          await this.keepRunning(row);
          if (row.passwordPending) await this.repairJob(row, 'database.rotate');
          break;
        case 'provisioning':
          if (await this.clock.passed('databases', row.id, row.provisionDeadline)) {
            const failed = await compareAndSet(this.dataSource.manager, DATABASE_CAS, row.id, 'provisioning', 'error', row.generation, {
              statusReason: 'provisioning did not finish before its deadline',
            });
            if (failed) {
              countRepair('databases', 'failed_past_deadline');
              await this.driver.delete(databaseServerKey(row));
            }
          } else {
            await this.repairJob(row, 'database.create');
          }
          break;
        case 'deleting':
          await this.repairJob(row, 'database.delete');
          break;
        default:
          break;
      }
    }
  }

  /** After a create raced a delete: remove what was built unless the row still wants it. */
  async removeIfUnwanted(row: ManagedDatabase): Promise<void> {
    const now = await this.dataSource.getRepository(ManagedDatabase).findOneBy({ id: row.id });
    if (!now || now.status === 'deleting' || now.status === 'error') await this.driver.delete(databaseServerKey(row));
  }

  /**
   * A ready server that is not running is started again on its data, and
   * looked at again by the next sweeps until it has taken its spec; one that
   * cannot start is an error. The restart is taken in the database's turn:
   * a delete since the sweep read the row either went first (and the row,
   * read again there, says so) or waits for the restart to end.
   */
  private async keepRunning(row: ManagedDatabase): Promise<void> {
    const observed = await this.driver.observe(databaseServerKey(row));
    const members = memberFieldsOf(row, observed);
    if (members) await this.dataSource.getRepository(ManagedDatabase).update({ id: row.id, status: 'ready', generation: row.generation }, members);
    // A ready row always holds its address; one without has nothing to start on.
    // A degraded one serves, and its down member is started (or rebuilt) by ensureRunning.
    if ((observed?.ready && !observed.degraded) || row.address === null) return;
    await this.turns.database(row.id, () => this.restart(row, observed));
  }

  private async restart(row: ManagedDatabase, observed: ObservedDatabaseServer | null): Promise<void> {
    if (!(await this.dataSource.getRepository(ManagedDatabase).existsBy({ id: row.id, status: 'ready', generation: row.generation }))) return;
    if (!observed?.running) this.logger.warn({ database: databaseServerKey(row) }, 'ready database server is not running; restarting it');
    try {
      await this.driver.ensureRunning(serverSpecOf(row, row.address!));
      // One that was running but not ready yet (still starting, or taking its spec) is looked at again, not restarted.
      if (!observed?.running) countRepair('databases', 'restarted_server');
    } catch (err) {
      if (!(err instanceof DriverError && err.terminal)) throw err;
      const failed = await compareAndSet(this.dataSource.manager, DATABASE_CAS, row.id, 'ready', 'error', row.generation, {
        statusReason: `the server stopped and could not be restarted: ${err.message}`,
      });
      if (failed) countRepair('databases', 'failed_restart');
    }
  }

  private async repairJob(row: ManagedDatabase, name: 'database.create' | 'database.delete' | 'database.rotate'): Promise<void> {
    if (Date.now() - row.updatedAt.getTime() < this.config.LOST_JOB_GRACE_MS) return;
    const job = resourceJob(name, databaseServerKey(row), { databaseId: row.id, generation: row.generation });
    if (await ensureJob(this.queue, job)) {
      countRepair('databases', 'requeued_lost_job');
      this.logger.warn({ database: databaseServerKey(row), job: job.jobId }, 're-enqueued a lost job');
    }
  }
}
