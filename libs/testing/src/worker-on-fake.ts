import { getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { AppConfig, loadConfig, Principal, ProjectsService } from '@stratus/core';
import { ALL_QUEUES, QueueName, redisConnection } from '@stratus/queue';
import { Queue } from 'bullmq';
import { Logger } from 'nestjs-pino';
import { rmSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { FAKE_CONTROL } from './fake-provider/fake-provider.module';
import { FakeControl, FakeControlOptions } from './fake-provider/fake-control';
import { dropDatabase, resetTestInstallation } from './installation';
import { RESOURCE_QUEUES, waitForDrain } from './queue-drain';
import { testEnv } from './test-env';

export interface WorkerOnFakeOptions {
  /** The fake's delays; the test holds the control and may change them or inject failures at any time. */
  control?: Omit<FakeControlOptions, 'bootLog' | 'stateFile'>;
  /** Settings beside the test installation's (WORKER_CONCURRENCY, deadlines...). */
  env?: Record<string, string>;
}

/** A worker module compiled and initialised in the test's own process, on the fake provider. */
export interface WorkerOnFake {
  module: TestingModule;
  /** The FakeControl the worker's drivers use. */
  control: FakeControl;
  config: AppConfig;
  /** The worker's own DataSource (its database is this worker's alone). */
  db: DataSource;
  /** A project and user of it to create resources as. */
  principal: Principal;
  get<T>(token: Type<T> | string | symbol): T;
  /** The BullMQ queue `name` as the worker's producers see it. */
  queue(name: QueueName): Queue;
  /** waitForDrain on `queues` (the resource queues unless named) and this worker's outbox. */
  drained(queues?: QueueName[], timeoutMs?: number): Promise<void>;
  /** Stops the worker (its BullMQ workers finish their jobs first), then removes its database, queues and data folder. */
  close(): Promise<void>;
}

/**
 * The worker's Nest module (`root`, e.g. WorkerModule.register) with its real
 * processors and reconcilers running in this process: BullMQ workers started
 * by Nest's init, the fake provider's drivers holding `control`, and real
 * PostgreSQL and Redis. No HTTP and no child process. `name` (one per spec
 * file) makes the installation the test's own (database, queue prefix, data
 * folder within the STRATUS_TEST_SLOT's), so spec files run side by side,
 * and it starts clean: migrated, the fake catalog synced, empty queues.
 *
 * The reconcile schedules are set far apart, so a test sweeps when it means
 * to (`get(InstancesReconciler).sweep()`), not when a timer happens to; the
 * outbox relay keeps its test interval.
 */
export async function startWorkerOnFake(name: string, root: (config: AppConfig) => DynamicModule, opts: WorkerOnFakeOptions = {}): Promise<WorkerOnFake> {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`worker name ${JSON.stringify(name)}: lowercase letters, digits and hyphens`);
  const base = testEnv({}, 'fake');
  const own = {
    DATABASE_URL: `${base.DATABASE_URL}_int_${name.replaceAll('-', '_')}`,
    QUEUE_PREFIX: `${base.QUEUE_PREFIX}-int-${name}`,
    DATA_DIR: `${base.DATA_DIR}-int-${name}`,
    RECONCILE_INTERVAL_MS: String(3_600_000),
    // Its expected warnings (a lost job re-enqueued, a stopped server restarted) would fill the test output.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    ...opts.env,
  };
  await resetTestInstallation(own, 'fake');
  const config = loadConfig(testEnv(own, 'fake'));
  const control = new FakeControl({ bootTimeoutMs: config.INSTANCE_BOOT_TIMEOUT_MS, ...opts.control });

  const module = await Test.createTestingModule({ imports: [root(config)] })
    .overrideProvider(AppConfig)
    .useValue(config)
    .overrideProvider(FAKE_CONTROL)
    .useValue(control)
    .compile();
  // The worker's own JSON logger (at LOG_LEVEL), as its process uses it, rather than Nest's console.
  module.useLogger(module.get(Logger));
  try {
    await module.init();
  } catch (err) {
    await module.close().catch(() => undefined);
    throw err;
  }
  const db = module.get(DataSource);
  const project = await new ProjectsService(db, config).createProject(`int-${name}`);
  const queue = (q: QueueName) => module.get<Queue>(getQueueToken(q), { strict: false });
  return {
    module,
    control,
    config,
    db,
    principal: { projectId: project.id, userId: `user-int-${name}` },
    get: (token) => module.get(token, { strict: false }),
    queue,
    drained: (queues = RESOURCE_QUEUES, timeoutMs) => waitForDrain(queues.map(queue), { dataSource: db, timeoutMs }),
    close: async () => {
      await module.close();
      await removeInstallation(config);
    },
  };
}

/**
 * `startWorkerOnFake` before the file's tests and its close after them; the
 * returned object is filled in once the worker has started.
 */
export function useWorkerOnFake(name: string, root: (config: AppConfig) => DynamicModule, opts: WorkerOnFakeOptions = {}): WorkerOnFake {
  const worker = {} as WorkerOnFake;
  beforeAll(async () => {
    Object.assign(worker, await startWorkerOnFake(name, root, opts));
  }, 120_000);
  afterAll(async () => {
    await worker.close?.();
  }, 120_000);
  return worker;
}

/** What startWorkerOnFake made: the database, the queues under its prefix and the data folder. */
async function removeInstallation(config: AppConfig): Promise<void> {
  for (const name of ALL_QUEUES) {
    const q = new Queue(name, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
    await q.obliterate({ force: true });
    await q.close();
  }
  await dropDatabase(config.DATABASE_URL);
  rmSync(config.DATA_DIR, { recursive: true, force: true });
}
