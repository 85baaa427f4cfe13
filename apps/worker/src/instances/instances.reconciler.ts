import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig, compareAndSet, countRepair, Instance, INSTANCE_CAS } from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver, LOCAL_HOOKS, LocalHooks } from '@stratus/providers';
import { QUEUES, resourceJob } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource, In } from 'typeorm';
import { ensureJob } from '../jobs/lost-jobs';
import { liveBatches } from '../jobs/live-batches';
import { WorkClock } from '../jobs/work-clock';
import { PacketFilterSync } from '../security-groups/packet-filter.sync';

/** The statuses a sweep looks at; ERROR is left as it is (instances_live indexes these). */
const LIVE_STATUSES = ['BUILD', 'ACTIVE', 'SHUTOFF', 'DELETING'];

/**
 * Level-based repair of instances: compares every live row with what the
 * provider runs and moves status to match. Also adopts instances after a
 * worker restart (observing them is all adoption takes), fails builds past
 * their deadline, and re-enqueues jobs that Redis lost.
 */
@Injectable()
export class InstancesReconciler {
  private readonly logger = new Logger(InstancesReconciler.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMPUTE_DRIVER) private readonly driver: ComputeDriver,
    @InjectQueue(QUEUES.instances) private readonly queue: Queue,
    private readonly packetFilter: PacketFilterSync,
    private readonly config: AppConfig,
    private readonly clock: WorkClock,
    @Optional() @Inject(LOCAL_HOOKS) hooks?: LocalHooks,
  ) {
    // The local provider says at once when an instance process exits; elsewhere the periodic sweep notices.
    hooks?.onInstanceExit((id) => {
      this.sweep([id]).catch((err) => this.logger.warn({ err: String(err), instance: id }, 'exit reconcile failed'));
    });
  }

  /** Reconciles the given instances, or every live one. */
  async sweep(ids?: string[]): Promise<void> {
    if (ids) return this.reconcile(await this.dataSource.getRepository(Instance).find({ where: { id: In(ids) } }));
    // Level-based like the rest: whatever a lost job or a crash left, the whole table is put right.
    await this.packetFilter.sync();
    // A batch at a time, in id order from where the last one ended: each costs the same however many
    // there are, and the sweep never holds every live row (nor one provider call for all of them) at once.
    for await (const rows of liveBatches<Instance>(this.dataSource, Instance, LIVE_STATUSES)) await this.reconcile(rows);
  }

  private async reconcile(rows: Instance[]): Promise<void> {
    if (rows.length === 0) return;
    const observed = await this.driver.observeAll(rows.map((r) => r.id));
    for (const row of rows) {
      const running = observed.get(row.id)?.running ?? false;
      const m = this.dataSource.manager;
      switch (row.status) {
        case 'ACTIVE':
          if (!running) {
            if (await compareAndSet(m, INSTANCE_CAS, row.id, 'ACTIVE', 'SHUTOFF', row.generation, { statusReason: 'the instance process exited' })) {
              countRepair('instances', 'observed_stopped');
            }
          }
          break;
        case 'SHUTOFF':
          if (running && (await compareAndSet(m, INSTANCE_CAS, row.id, 'SHUTOFF', 'ACTIVE', row.generation, { statusReason: null }))) {
            countRepair('instances', 'observed_running');
          }
          break;
        case 'BUILD':
          if (await this.clock.passed('instances', row.id, row.buildDeadline)) {
            const failed = await compareAndSet(m, INSTANCE_CAS, row.id, 'BUILD', 'ERROR', row.generation, {
              statusReason: 'build did not finish before its deadline',
            });
            if (failed) {
              countRepair('instances', 'failed_past_deadline');
              await this.driver.delete(row.id);
            }
          } else {
            await this.repairJob(row, 'instance.create');
          }
          break;
        case 'DELETING':
          await this.repairJob(row, 'instance.delete');
          break;
        default:
          break;
      }
    }
  }

  /** After a create raced a delete: remove what was built unless the row still wants it. */
  async removeIfUnwanted(id: string): Promise<void> {
    const row = await this.dataSource.getRepository(Instance).findOneBy({ id });
    if (!row || row.status === 'DELETING') await this.driver.delete(id);
  }

  private async repairJob(row: Instance, name: 'instance.create' | 'instance.delete'): Promise<void> {
    if (Date.now() - row.updatedAt.getTime() < this.config.LOST_JOB_GRACE_MS) return;
    const job = resourceJob(name, row.id, { instanceId: row.id, generation: row.generation });
    if (await ensureJob(this.queue, job)) {
      countRepair('instances', 'requeued_lost_job');
      this.logger.warn({ instance: row.id, job: job.jobId }, 're-enqueued a lost job');
    }
  }
}
