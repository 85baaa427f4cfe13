import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { CATALOG_DRIVER } from './catalog.driver';
import { COMPUTE_DRIVER } from './compute.driver';
import { DATABASE_DRIVER } from './databases.driver';
import { LOAD_BALANCER_DRIVER } from './load-balancer.driver';
import { NETWORK_DRIVER } from './network.driver';
import { providerEntry } from './provider-registry';
import { VOLUME_DRIVER } from './volume.driver';

/** Every token a provider module must export (and LOCAL_HOOKS, only the local provider's); the registry spec checks each. */
export const DRIVER_TOKENS = [CATALOG_DRIVER, COMPUTE_DRIVER, VOLUME_DRIVER, DATABASE_DRIVER, LOAD_BALANCER_DRIVER, NETWORK_DRIVER];

/** The drivers of the provider PROVIDER names. Only the worker creates them. */
@Module({})
export class ProvidersModule {
  /**
   * The chosen provider's module, made global so every processor and
   * reconciler injects the drivers by token. Throws ProviderUnavailableError
   * for a provider that is named but not built.
   */
  static forRoot(config: AppConfig): DynamicModule {
    const module = providerEntry(config).module();
    return { module: ProvidersModule, global: true, imports: [module], exports: [module] };
  }
}
