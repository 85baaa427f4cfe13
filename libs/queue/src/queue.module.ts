import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { DEFAULT_JOB_OPTIONS } from './job-catalog';
import { ALL_QUEUES } from './queue-names';

/** One Redis connection setting and every queue, registered the same way in api and worker. */
@Module({})
export class QueueModule {
  static register(): DynamicModule {
    const queues = BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name })));
    return {
      module: QueueModule,
      global: true,
      imports: [
        BullModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            connection: redisConnection(config.REDIS_URL),
            prefix: config.QUEUE_PREFIX,
            defaultJobOptions: DEFAULT_JOB_OPTIONS,
          }),
        }),
        queues,
      ],
      exports: [queues],
    };
  }
}

/**
 * Commands wait for a reconnect rather than fail (maxRetriesPerRequest null:
 * what BullMQ workers need; calls a caller waits on are bounded with
 * withRedisDeadline instead), and reconnects are tried every 2 s at most, not
 * BullMQ's default of up to 20 s, so work resumes soon after Redis is back.
 */
export function redisConnection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
}
