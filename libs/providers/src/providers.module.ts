import { Global, Module } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { join } from 'node:path';
import { CATALOG_DRIVER } from './catalog.driver';
import { createCatalogDriver } from './catalog-setup';
import { COMPUTE_DRIVER } from './compute.driver';
import { DATABASE_DRIVER } from './databases.driver';
import { createLocalDatabaseDriver } from './local/databases/local-databases';
import { installationCgroups } from './local/cgroups';
import { HostAccounts } from './local/host-accounts';
import { hostNames, installationId } from './local/installation';
import { LocalComputeDriver } from './local/local-compute.driver';
import { LocalImages } from './local/local-images';
import { LocalVolumeDriver } from './local/local-volume.driver';
import { PACKET_FILTER, PacketFilter } from './local/packet-filter';
import { VOLUME_DRIVER } from './volume.driver';

const LOCAL_IMAGES = Symbol('LOCAL_IMAGES');
/** The installation's host accounts (instance users, the database user), one per process. */
export const HOST_ACCOUNTS = Symbol('HOST_ACCOUNTS');

/** The drivers of the provider chosen by PROVIDER. Only the worker creates compute drivers. */
@Global()
@Module({
  providers: [
    { provide: LOCAL_IMAGES, useFactory: () => new LocalImages() },
    { provide: HOST_ACCOUNTS, inject: [AppConfig], useFactory: (config: AppConfig) => new HostAccounts(installationId(config.DATA_DIR)) },
    {
      provide: CATALOG_DRIVER,
      inject: [AppConfig, LOCAL_IMAGES],
      useFactory: (config: AppConfig, images: LocalImages) => createCatalogDriver(config, images),
    },
    {
      provide: COMPUTE_DRIVER,
      inject: [AppConfig, LOCAL_IMAGES, HOST_ACCOUNTS],
      useFactory: (config: AppConfig, images: LocalImages, accounts: HostAccounts) =>
        new LocalComputeDriver({
          instancesDir: join(config.DATA_DIR, 'instances'),
          accounts,
          limiter: installationCgroups(accounts.installation),
          images,
          bootTimeoutMs: config.INSTANCE_BOOT_TIMEOUT_MS,
        }),
    },
    {
      provide: VOLUME_DRIVER,
      inject: [AppConfig, HOST_ACCOUNTS],
      useFactory: (config: AppConfig, accounts: HostAccounts) =>
        new LocalVolumeDriver({
          volumesDir: join(config.DATA_DIR, 'volumes'),
          instancesDir: join(config.DATA_DIR, 'instances'),
          accounts,
        }),
    },
    {
      provide: PACKET_FILTER,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new PacketFilter(hostNames.filterTable(installationId(config.DATA_DIR))),
    },
    {
      provide: DATABASE_DRIVER,
      inject: [AppConfig, HOST_ACCOUNTS],
      useFactory: (config: AppConfig, accounts: HostAccounts) => createLocalDatabaseDriver(config, accounts),
    },
  ],
  exports: [DATABASE_DRIVER, CATALOG_DRIVER, COMPUTE_DRIVER, VOLUME_DRIVER, PACKET_FILTER, HOST_ACCOUNTS],
})
export class ProvidersModule {}
