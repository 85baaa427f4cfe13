import { DynamicModule, Type } from '@nestjs/common';
import { AppConfig, ProviderName } from '@stratus/core';
import { CatalogDriver } from './catalog.driver';
import { LocalCatalog } from './local/local-catalog';
import { LocalImages } from './local/local-images';
import { LocalProviderModule } from './local/local-provider.module';
import { OpenStackCatalogDriver } from './openstack/openstack-catalog.driver';
import { resolveCloud } from './openstack/openstack-cloud';
import { OpenStackProviderModule, openStackClient } from './openstack/openstack-provider.module';

/** A provider PROVIDER may name: its Nest module (exporting every driver token) and its catalog. */
export interface ProviderEntry {
  module(): Type | DynamicModule;
  /** Its catalog without a Nest context, for the setup that runs before the processes start. */
  catalog(config: AppConfig): CatalogDriver;
}

/** PROVIDER names a provider that is not built (or not allowed here): start-up stops with this message alone. */
export class ProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}

/**
 * The test tree's fake provider (libs/testing/src/fake-provider), loaded
 * only when PROVIDER=fake: production code imports nothing from the test
 * tree, and the compiled tree (dist/) holds it beside this file's own
 * library, so the e2e stack's worker finds it by the same relative path.
 */
function fakeProvider(): { FakeProviderModule: Type; FakeCatalogDriver: new (addressPool: string) => CatalogDriver } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../testing/src/fake-provider/fake-provider.module');
}

const REGISTRY: Record<ProviderName, ProviderEntry | { unavailable: string }> = {
  local: {
    module: () => LocalProviderModule,
    catalog: (config) => new LocalCatalog(new LocalImages(), config.LOCAL_ADDRESS_POOL),
  },
  fake: {
    module: () => fakeProvider().FakeProviderModule,
    catalog: (config) => new (fakeProvider().FakeCatalogDriver)(config.LOCAL_ADDRESS_POOL),
  },
  openstack: {
    module: () => OpenStackProviderModule,
    catalog: (config) => new OpenStackCatalogDriver(openStackClient(config)),
  },
};

/** The registry entry PROVIDER names, or a ProviderUnavailableError that says why not. */
export function providerEntry(config: AppConfig): ProviderEntry {
  const entry = REGISTRY[config.PROVIDER];
  if (!entry) throw new ProviderUnavailableError(`PROVIDER=${config.PROVIDER} is not a known provider`);
  if ('unavailable' in entry) throw new ProviderUnavailableError(entry.unavailable);
  // In-memory drivers would report resources that do not exist: never in production.
  if (config.PROVIDER === 'fake' && config.NODE_ENV === 'production') {
    throw new ProviderUnavailableError("PROVIDER=fake is the test tree's in-memory provider and is refused with NODE_ENV=production");
  }
  // A cloud that cannot be read (no clouds.yaml, no credentials) stops the start as a provider that is not there would.
  if (config.PROVIDER === 'openstack') {
    try {
      resolveCloud(config);
    } catch (err) {
      throw new ProviderUnavailableError(`PROVIDER=openstack: ${(err as Error).message}`);
    }
  }
  return entry;
}
