import { Module } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CATALOG_DRIVER } from '../catalog.driver';
import { COMPUTE_DRIVER } from '../compute.driver';
import { DATABASE_DRIVER } from '../databases.driver';
import { LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '../load-balancer.driver';
import { NETWORK_DRIVER } from '../network.driver';
import { VOLUME_DRIVER } from '../volume.driver';
import { installationCgroups } from './cgroups';
import { createLocalDatabaseDriver } from './databases/local-databases';
import { LocalDatabaseDriver } from './databases/local-database.driver';
import { HostAccounts } from './host-accounts';
import { hostNames, installationId } from './installation';
import { LocalCatalog } from './local-catalog';
import { LocalComputeDriver } from './local-compute.driver';
import { LOCAL_HOOKS, LocalHooks } from './local-hooks';
import { LocalImages } from './local-images';
import { LocalSnapshots } from './local-snapshots';
import { LocalLoadBalancerDriver } from './local-load-balancer.driver';
import { LocalNetworkDriver } from './local-network.driver';
import { LocalVolumeDriver } from './local-volume.driver';
import { PacketFilter } from './packet-filter';

const LOCAL_IMAGES = Symbol('LOCAL_IMAGES');
const HOST_ACCOUNTS = Symbol('HOST_ACCOUNTS');

/**
 * The local provider (the embedded default): every driver on this machine.
 * Besides the shared driver tokens it exports LOCAL_HOOKS, what only it has.
 */
@Module({
  providers: [
    // Snapshot images in the data folder, beside the instances they are copied into.
    { provide: LOCAL_IMAGES, inject: [AppConfig], useFactory: (config: AppConfig) => new LocalImages(undefined, new LocalSnapshots(join(config.DATA_DIR, 'snapshots'))) },
    // One per process: instance users and the database user of this installation.
    { provide: HOST_ACCOUNTS, inject: [AppConfig], useFactory: (config: AppConfig) => new HostAccounts(installationId(config.DATA_DIR)) },
    {
      provide: CATALOG_DRIVER,
      inject: [AppConfig, LOCAL_IMAGES],
      useFactory: (config: AppConfig, images: LocalImages) => new LocalCatalog(images, config.LOCAL_ADDRESS_POOL),
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
      provide: DATABASE_DRIVER,
      inject: [AppConfig, HOST_ACCOUNTS, LOAD_BALANCER_DRIVER],
      useFactory: (config: AppConfig, accounts: HostAccounts, balancer: LoadBalancerDriver) => createLocalDatabaseDriver(config, accounts, balancer),
    },
    {
      // The desired state goes to PostgreSQL, where the edge reads it; a process without the database gets an error on use, not at boot.
      provide: LOAD_BALANCER_DRIVER,
      inject: [AppConfig, { token: DataSource, optional: true }],
      useFactory: (config: AppConfig, db?: DataSource) =>
        new LocalLoadBalancerDriver(
          () => {
            if (!db) throw new Error('the load-balancer driver needs the database module');
            return db;
          },
          {
            gateway: { host: config.GATEWAY_HOST, range: config.gatewayPorts },
            http: config.EDGE_HTTP_PORT ? { host: config.EDGE_HTTP_HOST, port: config.EDGE_HTTP_PORT } : null,
          },
          config.DATABASE_URL,
        ),
    },
    {
      // The leases are rows beside the resources; as for load balancers, the database is needed on use only.
      provide: NETWORK_DRIVER,
      inject: [{ token: DataSource, optional: true }],
      useFactory: (db?: DataSource) =>
        new LocalNetworkDriver(() => {
          if (!db) throw new Error('the network driver needs the database module');
          return db;
        }),
    },
    {
      provide: LOCAL_HOOKS,
      inject: [AppConfig, COMPUTE_DRIVER, DATABASE_DRIVER, HOST_ACCOUNTS],
      useFactory: (config: AppConfig, compute: LocalComputeDriver, databases: LocalDatabaseDriver, accounts: HostAccounts): LocalHooks => ({
        onInstanceExit: (listener) => compute.onExit(listener),
        onDatabaseExit: (listener) => databases.onExit(listener),
        keepDatabaseSpares: (count, events) => databases.keepSpares(count, events),
        closeDatabaseSpares: () => databases.close(),
        accounts,
        packetFilter: new PacketFilter(hostNames.filterTable(installationId(config.DATA_DIR))),
        databasePeers: (database) => databases.peers(database),
      }),
    },
  ],
  exports: [CATALOG_DRIVER, COMPUTE_DRIVER, VOLUME_DRIVER, DATABASE_DRIVER, LOAD_BALANCER_DRIVER, NETWORK_DRIVER, LOCAL_HOOKS],
})
export class LocalProviderModule {}
