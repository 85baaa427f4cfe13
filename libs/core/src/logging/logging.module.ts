import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino from 'pino';
import { AppConfig } from '../config/app.config';

/** Credential fields are removed from every log line, wherever they appear. */
export const REDACT_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.db_password', '*.secret', '*.token', '*.key'];

export type ServiceName = 'api' | 'worker' | 'edge';

/**
 * The one pino logger of a process: JSON lines naming the service, credential
 * fields redacted. The edge, which is not a Nest app, uses it directly.
 */
export function createLogger(service: ServiceName, level: string): pino.Logger {
  return pino(
    { level, base: { service }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    // Asynchronous writes: lines logged while a write is under way leave
    // together in the next one, so a busy process makes one write (and wakes
    // whoever reads its output once) per batch rather than per line. pino
    // flushes what is left on exit.
    pino.destination({ sync: false }),
  );
}

/**
 * Structured JSON logs through one pino logger per process. Lines logged
 * while a request or a job runs come from a child of it that names the
 * request (request_id) or the job (job_id, job_name, attempt): the api binds
 * that child in its request hooks (apps/api/src/http/request-logging.ts), the
 * worker around each handler. No pino-http middleware is mounted: per
 * request it cost about a third of the api's read throughput (bench/README.md).
 */
@Module({})
export class LoggingModule {
  static forRoot(service: ServiceName): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            pinoHttp: { logger: createLogger(service, config.LOG_LEVEL) },
            // Only the logger: the request binding is ours, in Fastify hooks.
            useExisting: true,
            forRoutes: [],
          }),
        }),
      ],
    };
  }
}
