import { AppConfig, migrate, syncCatalog } from '@stratus/core';
import { DataSource } from 'typeorm';
import { CatalogDriver } from './catalog.driver';
import { providerEntry } from './provider-registry';

/** The catalog driver of the provider PROVIDER names. */
export function createCatalogDriver(config: AppConfig): CatalogDriver {
  return providerEntry(config).catalog(config);
}

/**
 * The database as the processes need it before they start: migrated, with
 * the provider's catalog mirrored. Used by `npm start`'s setup and by the
 * test installation; the worker keeps the catalog current afterwards.
 */
export async function prepareDatabase(config: AppConfig): Promise<DataSource> {
  // First: a provider that is not built stops the setup before it changes anything.
  const driver = createCatalogDriver(config);
  const dataSource = await migrate(config);
  const catalog = await driver.catalog();
  await dataSource.transaction((m) => syncCatalog(m, catalog));
  return dataSource;
}
