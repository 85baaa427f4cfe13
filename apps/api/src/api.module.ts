import { Module } from '@nestjs/common';
import { ConfigModule, CoreModule, DatabaseModule, IdempotencyKeys, LoggingModule } from '@stratus/core';
import { shadowedByWildcard } from '@stratus/providers';
import { OutboxService, QueueModule } from '@stratus/queue';
import { AuthModule } from './auth/auth.module';
import { CatalogController } from './catalog/catalog.controller';
import { ClustersController } from './clusters/clusters.controller';
import { CatalogService } from './catalog/catalog.service';
import { AnalyticsController, CacheController, DatabasesController, RelationalDatabasesController } from './databases/databases.controller';
import { DnsController } from './dns/dns.controller';
import { GatewayController } from './gateway/gateway.controller';
import { HealthController } from './health/health.controller';
import { ChangeFeed } from './http/change-feed';
import { IdempotencyInterceptor } from './http/idempotency.interceptor';
import { LongPollInterceptor } from './http/long-poll.interceptor';
import { InstancesController } from './instances/instances.controller';
import { VolumesController } from './volumes/volumes.controller';

/** Routes only: each resource's life is libs/core's (CoreModule), which the controllers call. */
@Module({
  imports: [ConfigModule, LoggingModule.forRoot('api'), DatabaseModule, QueueModule.register(), AuthModule, CoreModule.register({ outbox: OutboxService, shadowedByWildcard })],
  controllers: [
    HealthController,
    CatalogController,
    InstancesController,
    VolumesController,
    GatewayController,
    DnsController,
    DatabasesController,
    CacheController,
    RelationalDatabasesController,
    AnalyticsController,
    ClustersController,
  ],
  providers: [CatalogService, ChangeFeed, LongPollInterceptor, IdempotencyKeys, IdempotencyInterceptor],
})
export class ApiModule {}
