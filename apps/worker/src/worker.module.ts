import { Module } from '@nestjs/common';
import { ConfigModule, DatabaseModule, LoggingModule } from '@stratus/core';
import { ProvidersModule } from '@stratus/providers';
import { OutboxService, QueueModule } from '@stratus/queue';
import { CatalogSync } from './catalog/catalog.sync';
import { DatabasesProcessor } from './databases/databases.processor';
import { DatabasesReconciler } from './databases/databases.reconciler';
import { InstancesProcessor } from './instances/instances.processor';
import { InstancesReconciler } from './instances/instances.reconciler';
import { PacketFilterSync } from './security-groups/packet-filter.sync';
import { MaintenanceProcessor } from './schedules/maintenance.processor';
import { ScheduleKeeper } from './schedules/schedule-keeper';
import { VolumesProcessor } from './volumes/volumes.processor';
import { VolumesReconciler } from './volumes/volumes.reconciler';

@Module({
  imports: [ConfigModule, LoggingModule.forRoot('worker'), DatabaseModule, QueueModule.register(), ProvidersModule],
  providers: [OutboxService, PacketFilterSync, CatalogSync, InstancesReconciler, InstancesProcessor, DatabasesReconciler, DatabasesProcessor, MaintenanceProcessor, ScheduleKeeper, VolumesReconciler, VolumesProcessor],
})
export class WorkerModule {}
