import { Module } from '@nestjs/common';
import { ConfigModule, DatabaseModule, LoggingModule } from '@stratus/core';
import { OutboxService, QueueModule } from '@stratus/queue';
import { AuthModule } from './auth/auth.module';
import { CatalogController } from './catalog/catalog.controller';
import { CatalogService } from './catalog/catalog.service';
import { AnalyticsController, CacheController, DatabasesController } from './databases/databases.controller';
import { DatabasesService } from './databases/databases.service';
import { DnsController } from './dns/dns.controller';
import { DnsService } from './dns/dns.service';
import { GatewayController } from './gateway/gateway.controller';
import { GatewayService } from './gateway/gateway.service';
import { RouteTargets } from './gateway/route-target';
import { HealthController } from './health/health.controller';
import { InstancesController } from './instances/instances.controller';
import { InstancesService } from './instances/instances.service';
import { VolumesController } from './volumes/volumes.controller';
import { VolumesService } from './volumes/volumes.service';

@Module({
  imports: [ConfigModule, LoggingModule.forRoot('api'), DatabaseModule, QueueModule.register(), AuthModule],
  controllers: [HealthController, CatalogController, InstancesController, VolumesController, GatewayController, DnsController, DatabasesController, CacheController, AnalyticsController],
  providers: [OutboxService, CatalogService, InstancesService, VolumesService, GatewayService, RouteTargets, DnsService, DatabasesService],
})
export class ApiModule {}
