import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { DatabasesProcessor } from './databases/databases.processor';
import { InstancesProcessor } from './instances/instances.processor';
import { setJobLogRoot } from './jobs/job-handlers';
import { MaintenanceProcessor } from './schedules/maintenance.processor';
import { VolumesProcessor } from './volumes/volumes.processor';
import { WorkerModule } from './worker.module';

const DRAIN_MS = 15_000;

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
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
  logger.log('worker started');
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
