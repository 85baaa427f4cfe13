import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule, CoreModule, DatabaseModule, IdempotencyKeys, LoggingModule } from '@stratus/core';
import { ProvidersModule, shadowedByWildcard } from '@stratus/providers';
import { OutboxService, QueueModule } from '@stratus/queue';
import { CatalogSync } from './catalog/catalog.sync';
import { ClusterAdoption } from './clusters/cluster-adoption';
import { ClusterMembers } from './clusters/cluster-members';
import { ClustersProcessor } from './clusters/clusters.processor';
import { ClustersAutoscaler } from './clusters/clusters.autoscaler';
import { ClustersReconciler } from './clusters/clusters.reconciler';
import { DatabasesProcessor } from './databases/databases.processor';
import { DatabasesReconciler } from './databases/databases.reconciler';
import { HostListeners } from './gateway/host-listeners';
import { HostsReconciler } from './gateway/hosts.reconciler';
import { RouteListeners } from './gateway/route-listeners';
import { RoutesProcessor } from './gateway/routes.processor';
import { RoutesReconciler } from './gateway/routes.reconciler';
import { InstancesProcessor } from './instances/instances.processor';
import { InstancesReconciler } from './instances/instances.reconciler';
import { JobLogging } from './jobs/job-handlers';
import { OwnDatabase } from './jobs/own-database';
import { ResourceTurns } from './jobs/resource-turns';
import { WorkClock } from './jobs/work-clock';
import { PacketFilterSync } from './security-groups/packet-filter.sync';
import { MaintenanceProcessor } from './schedules/maintenance.processor';
import { ScheduleKeeper } from './schedules/schedule-keeper';
import { VolumesProcessor } from './volumes/volumes.processor';
import { VolumesReconciler } from './volumes/volumes.reconciler';

/**
 * The worker; `register` adds the drivers of the provider the configuration
 * names. CoreModule gives jobs the resource lives the api uses, so a job can
 * create an instance as POST /v1/instances does (a cluster's members).
 */
@Module({
  imports: [ConfigModule, LoggingModule.forRoot('worker'), DatabaseModule, QueueModule.register(), CoreModule.register({ outbox: OutboxService, shadowedByWildcard })],
  providers: [
    JobLogging,
    OwnDatabase,
    WorkClock,
    PacketFilterSync,
    ResourceTurns,
    IdempotencyKeys,
    CatalogSync,
    InstancesReconciler,
    InstancesProcessor,
    DatabasesReconciler,
    DatabasesProcessor,
    MaintenanceProcessor,
    ScheduleKeeper,
    VolumesReconciler,
    VolumesProcessor,
    RouteListeners,
    RoutesReconciler,
    RoutesProcessor,
    HostListeners,
    HostsReconciler,
    ClusterMembers,
    ClusterAdoption,
    ClustersReconciler,
    ClustersAutoscaler,
    ClustersProcessor,
  ],
})
export class WorkerModule {
  static register(config: AppConfig): DynamicModule {
    return { module: WorkerModule, imports: [ProvidersModule.forRoot(config)] };
  }
}
