import { Module } from '@nestjs/common';
import { AppConfig, randomToken, readOrCreateSecret, secretsDir } from '@stratus/core';
import { join } from 'node:path';
import { CATALOG_DRIVER } from '../catalog.driver';
import { COMPUTE_DRIVER } from '../compute.driver';
import { DATABASE_DRIVER } from '../databases.driver';
import { LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '../load-balancer.driver';
import { NETWORK_DRIVER } from '../network.driver';
import { VOLUME_DRIVER } from '../volume.driver';
import { OpenStackCatalogDriver } from './openstack-catalog.driver';
import { OpenStackClient } from './openstack-client';
import { resolveCloud } from './openstack-cloud';
import { OpenStackComputeDriver } from './openstack-compute.driver';
import { OpenStackDatabaseDriver } from './openstack-database.driver';
import { OpenStackNetworkDriver } from './openstack-network.driver';
import { OpenStackLoadBalancerDriver } from './openstack-load-balancer.driver';
import { PostgresTurns } from '../shared-turns';
import { OpenStackVolumeDriver } from './openstack-volume.driver';

export const OPENSTACK_CLIENT = Symbol('OPENSTACK_CLIENT');

/** The file in the secrets folder holding the key ha members' secrets are derived from (haMemberSecrets). */
export const DATABASE_HA_KEY_FILE = 'database-ha-key';

/** How long a change of a load balancer waits for another worker's turn on it (a turn is a few Octavia changes, each up to minutes). */
const TURN_WAIT_MS = 10 * 60_000;

/** The client of the cloud the settings name: one per process, so one token. */
export function openStackClient(config: AppConfig): OpenStackClient {
  return new OpenStackClient(resolveCloud(config));
}

/**
 * Managed databases as servers: the image, flavor and data-path settings,
 * Nova's boot timeout; an ha database's listener on the provider's load
 * balancer, and its members' secrets derived from a key in the
 * installation's secrets folder (read on first use: a process that never
 * boots an ha member never touches it).
 */
function openStackDatabaseDriver(config: AppConfig, client: OpenStackClient, balancer: LoadBalancerDriver): OpenStackDatabaseDriver {
  return new OpenStackDatabaseDriver(
    client,
    {
      image: config.OPENSTACK_DATABASE_IMAGE,
      flavor: config.OPENSTACK_DATABASE_FLAVOR,
      dataPath: config.OPENSTACK_DATA_PATH,
      bootTimeoutMs: config.INSTANCE_BOOT_TIMEOUT_MS,
      haKey: () => readOrCreateSecret(join(secretsDir(config.DATA_DIR), DATABASE_HA_KEY_FILE), () => randomToken(32)),
    },
    balancer,
  );
}

/** The openstack provider: every driver of the seam against one OpenStack cloud. */
@Module({
  providers: [
    { provide: OPENSTACK_CLIENT, inject: [AppConfig], useFactory: openStackClient },
    { provide: CATALOG_DRIVER, inject: [OPENSTACK_CLIENT], useFactory: (c: OpenStackClient) => new OpenStackCatalogDriver(c) },
    {
      provide: COMPUTE_DRIVER,
      inject: [AppConfig, OPENSTACK_CLIENT],
      useFactory: (config: AppConfig, c: OpenStackClient) => new OpenStackComputeDriver(c, { bootTimeoutMs: config.INSTANCE_BOOT_TIMEOUT_MS, network: config.OPENSTACK_NETWORK }),
    },
    { provide: VOLUME_DRIVER, inject: [OPENSTACK_CLIENT], useFactory: (c: OpenStackClient) => new OpenStackVolumeDriver(c) },
    { provide: NETWORK_DRIVER, inject: [OPENSTACK_CLIENT], useFactory: (c: OpenStackClient) => new OpenStackNetworkDriver(c) },
    {
      provide: LOAD_BALANCER_DRIVER,
      inject: [AppConfig, OPENSTACK_CLIENT],
      useFactory: (config: AppConfig, c: OpenStackClient) =>
        new OpenStackLoadBalancerDriver(c, { dataPath: config.OPENSTACK_DATA_PATH, shared: new PostgresTurns(config.DATABASE_URL, TURN_WAIT_MS) }),
    },
    { provide: DATABASE_DRIVER, inject: [AppConfig, OPENSTACK_CLIENT, LOAD_BALANCER_DRIVER], useFactory: openStackDatabaseDriver },
  ],
  exports: [CATALOG_DRIVER, COMPUTE_DRIVER, VOLUME_DRIVER, DATABASE_DRIVER, LOAD_BALANCER_DRIVER, NETWORK_DRIVER],
})
export class OpenStackProviderModule {}
