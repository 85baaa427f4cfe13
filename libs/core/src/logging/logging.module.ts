import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
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
              genReqId: (req: IncomingMessage, res: ServerResponse) => {
                const given = req.headers['x-request-id'];
                const id = typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
                res.setHeader('x-request-id', id);
                return id;
              },
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
