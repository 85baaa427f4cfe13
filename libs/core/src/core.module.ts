import { DynamicModule, Module, Type } from '@nestjs/common';
import { ClusterLifecycle } from './clusters/cluster.lifecycle';
import { CatalogLookups } from './catalog/catalog.lookups';
import { ManagedDatabaseLifecycle } from './databases/managed-database.lifecycle';
import { ProxyHostLifecycle } from './dns/proxy-host.lifecycle';
import { GatewayRouteLifecycle } from './gateway/gateway-route.lifecycle';
import { RouteTargetChecks, SHADOWED_BY_WILDCARD, ShadowedByWildcard } from './gateway/route-target.checks';
import { InstanceLifecycle } from './instances/instance.lifecycle';
import { JobOutbox } from './outbox/job-outbox';
import { ProjectQuotas } from './quotas/project-quotas';
import { VolumeLifecycle } from './volumes/volume.lifecycle';

/** What a process hands the resource lives: the two things libs/core cannot import itself. */
export interface CoreModuleOptions {
  /** The transactional outbox (libs/queue's OutboxService; libs/queue depends on libs/core). */
  outbox: Type<JobOutbox>;
  /** The provider's wildcard-listener check (libs/providers' shadowedByWildcard; it depends on libs/core too). */
  shadowedByWildcard: ShadowedByWildcard;
}

const LIVES = [
  ProjectQuotas,
  CatalogLookups,
  RouteTargetChecks,
  InstanceLifecycle,
  VolumeLifecycle,
  ProxyHostLifecycle,
  GatewayRouteLifecycle,
  ManagedDatabaseLifecycle,
  ClusterLifecycle,
];

/**
 * Every resource's life (create, delete, state moves), for the api's routes
 * and the worker's jobs alike: a cluster creates its members through the
 * same InstanceLifecycle a POST /v1/instances does. Needs ConfigModule and
 * DatabaseModule (both global) beside it.
 */
@Module({})
export class CoreModule {
  static register(options: CoreModuleOptions): DynamicModule {
    return {
      module: CoreModule,
      // One outbox for the process: the lives write through JobOutbox, the worker's jobs inject the class itself.
      providers: [...LIVES, options.outbox, { provide: JobOutbox, useExisting: options.outbox }, { provide: SHADOWED_BY_WILDCARD, useValue: options.shadowedByWildcard }],
      exports: [...LIVES, options.outbox, JobOutbox],
    };
  }
}
