import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { setJobLogRoot } from './jobs/job-handlers';
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
  app.get(Logger).log('worker started');
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
