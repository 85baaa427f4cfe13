import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/app.config';

/** Credential fields are removed from every log line, wherever they appear. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.password',
  '*.db_password',
  '*.secret',
  '*.token',
  '*.key',
];

/** Structured JSON logs; HTTP lines carry the request id, echoed in `x-request-id`. */
@Module({})
export class LoggingModule {
  static forRoot(service: 'api' | 'worker' | 'edge'): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            pinoHttp: {
              level: config.LOG_LEVEL,
              base: { service },
              redact: { paths: REDACT_PATHS, censor: '[redacted]' },
              // The HTTP server assigns the id (and echoes it); logs reuse it.
              genReqId: (req: IncomingMessage) => String((req as { id?: unknown }).id ?? randomUUID()),
              customAttributeKeys: { reqId: 'request_id' },
              serializers: {
                req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
              },
              autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' },
            },
          }),
        }),
      ],
    };
  }
}
