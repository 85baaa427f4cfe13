import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '@stratus/core';
import { ProviderUnavailableError } from '@stratus/providers';
import { Logger } from 'nestjs-pino';
import { ClustersProcessor } from './clusters/clusters.processor';
import { DatabasesProcessor } from './databases/databases.processor';
import { RoutesProcessor } from './gateway/routes.processor';
import { InstancesProcessor } from './instances/instances.processor';
import { startWorkerMetrics } from './metrics/metrics.server';
import { MaintenanceProcessor } from './schedules/maintenance.processor';
import { VolumesProcessor } from './volumes/volumes.processor';
import { WorkerModule } from './worker.module';

/** Every queue's processor: each stops taking jobs before anything else closes, and each logs its connection errors. */
const PROCESSORS = [InstancesProcessor, DatabasesProcessor, VolumesProcessor, RoutesProcessor, ClustersProcessor, MaintenanceProcessor];

/** Signals that stop the worker: a supervisor's SIGTERM, a terminal's Ctrl-C or hang-up. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

async function main(): Promise<void> {
  // The provider is chosen before anything starts: one that is named but not built stops here.
  const config = loadConfig();
  // The BullMQ workers take jobs from inside the Nest boot (start-up sweeps
  // still run after that): a stop signal that comes meanwhile is held, not
  // left to Node's default, which would kill them mid-job.
  let early: string | null = null;
  const hold = (signal: string) => (early ??= signal);
  for (const signal of STOP_SIGNALS) process.on(signal, hold);
  // Lines logged before pino is set up are held; JobLogging (made with the providers) flushes them to it.
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { bufferLogs: true });
  const stop = stopOnSignals(app, config.SHUTDOWN_TIMEOUT_MS);
  for (const signal of STOP_SIGNALS) process.off(signal, hold);
  if (early) return stop(early);
  // A BullMQ worker with no error listener prints its connection errors
  // (Redis down: one per reconnect) to the console, outside the JSON log.
  const logger = app.get(Logger);
  for (const processor of PROCESSORS) {
    const { worker } = app.get(processor);
    worker.on('error', (err) => logger.warn({ queue: worker.name, err: err.message }, 'queue connection failed; retrying'));
  }
  await startWorkerMetrics(app);
  logger.log('worker started');
}

/**
 * Stops the worker on a signal, in this order: every BullMQ worker stops
 * taking jobs and waits for the ones it runs (Worker.close), and only then
 * does Nest close the rest, PostgreSQL pools included. Left to Nest alone,
 * the BullMQ workers close in the same shutdown pass as the pools, so a job
 * under way could lose its database mid-step. Bounded by `timeoutMs`: a job
 * still running then keeps its lock until the lock lapses (INSTANCE_WORKER_OPTIONS),
 * and another worker runs it again; every handler is safe to repeat and
 * each state move is a compare-and-set, so nothing is left half-done that
 * the rerun (or the reconciler) does not finish.
 */
function stopOnSignals(app: INestApplicationContext, timeoutMs: number): (signal: string) => Promise<void> {
  const logger = app.get(Logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const workers = PROCESSORS.map((p) => app.get(p).worker);
    logger.log(
      { signal, timeout_ms: timeoutMs, active: workers.map((w) => ({ queue: w.name, running: w.isRunning() })) },
      'stopping: taking no more jobs, finishing the ones under way',
    );
    setTimeout(() => {
      logger.warn({ timeout_ms: timeoutMs }, 'jobs still running at the shutdown deadline; exiting (they run again elsewhere once their locks lapse)', 'Shutdown');
      process.exit(1);
    }, timeoutMs).unref();
    try {
      await Promise.all(workers.map((w) => w.close()));
      logger.log({ took_ms: Date.now() - started }, 'jobs finished; closing', 'Shutdown');
      await app.close();
      process.exit(0);
    } catch (err) {
      logger.error({ err: String(err) }, 'shutdown failed', 'Shutdown');
      process.exit(1);
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(signal));
  return stop;
}

main().catch((err) => {
  // A refusal is the operator's to fix, not a bug: its message is the whole story.
  if (err instanceof ProviderUnavailableError) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
