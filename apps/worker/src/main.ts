import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@stratus/core';
import { ProviderUnavailableError } from '@stratus/providers';
import { Logger, PinoLogger } from 'nestjs-pino';
import { DatabasesProcessor } from './databases/databases.processor';
import { InstancesProcessor } from './instances/instances.processor';
import { setJobLogRoot } from './jobs/job-handlers';
import { startWorkerMetrics } from './metrics/metrics.server';
import { MaintenanceProcessor } from './schedules/maintenance.processor';
import { VolumesProcessor } from './volumes/volumes.processor';
import { WorkerModule } from './worker.module';

const DRAIN_MS = 15_000;

async function main(): Promise<void> {
  // The provider is chosen before anything starts: one that is named but not built stops here.
  const app = await NestFactory.createApplicationContext(WorkerModule.register(loadConfig()), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  setJobLogRoot((await app.resolve(PinoLogger)).logger);
  app.enableShutdownHooks();
  // Shutdown waits for running jobs, but not forever: what is cut off is
  // picked up again by another worker once its lock lapses.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(0), DRAIN_MS).unref());
  }
  // A BullMQ worker with no error listener prints its connection errors
  // (Redis down: one per reconnect) to the console, outside the JSON log.
  const logger = app.get(Logger);
  for (const processor of [InstancesProcessor, DatabasesProcessor, VolumesProcessor, MaintenanceProcessor]) {
    const { worker } = app.get(processor);
    worker.on('error', (err) => logger.warn({ queue: worker.name, err: err.message }, 'queue connection failed; retrying'));
  }
  await startWorkerMetrics(app);
  logger.log('worker started');
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
