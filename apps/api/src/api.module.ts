import { Module } from '@nestjs/common';
import { ConfigModule, DatabaseModule, LoggingModule } from '@stratus/core';
import { OutboxService, QueueModule } from '@stratus/queue';
import { AuthModule } from './auth/auth.module';
import { CatalogController } from './catalog/catalog.controller';
import { CatalogService } from './catalog/catalog.service';
import { HealthController } from './health/health.controller';
import { InstancesController } from './instances/instances.controller';
import { InstancesService } from './instances/instances.service';

@Module({
  imports: [ConfigModule, LoggingModule.forRoot('api'), DatabaseModule, QueueModule.register(), AuthModule],
  controllers: [HealthController, CatalogController, InstancesController],
  providers: [OutboxService, CatalogService, InstancesService],
})
export class ApiModule {}
