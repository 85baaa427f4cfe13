import { Module } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { CATALOG_DRIVER, COMPUTE_DRIVER, DATABASE_DRIVER, LOAD_BALANCER_DRIVER, NETWORK_DRIVER, VOLUME_DRIVER } from '@stratus/providers';
import { join } from 'node:path';
import { FakeCatalogDriver } from './fake-catalog.driver';
import { FakeComputeDriver } from './fake-compute.driver';
import { FakeControl } from './fake-control';
import { FakeDatabaseDriver } from './fake-database.driver';
import { FakeLoadBalancerDriver } from './fake-load-balancer.driver';
import { FakeNetworkDriver } from './fake-network.driver';
import { FakeVolumeDriver } from './fake-volume.driver';

export { FakeCatalogDriver };

/** The FAKE provider's control object, injectable in a TestingModule. */
export const FAKE_CONTROL = Symbol('FAKE_CONTROL');

/** Where a worker running the fake provider writes its boots, for a test in another process. */
export function fakeBootLog(dataDir: string): string {
  return join(dataDir, 'fake-provider', 'boots.jsonl');
}

/** Where a worker running the fake provider keeps what it "runs", for the next worker of the installation. */
export function fakeStateFile(dataDir: string): string {
  return join(dataDir, 'fake-provider', 'state.json');
}

/** The env the fake reads (a worker started by a test cannot be handed a control object). */
function controlFromEnv(config: AppConfig, env: NodeJS.ProcessEnv = process.env): FakeControl {
  const ms = (name: string) => {
    const value = env[name];
    return value && /^\d+$/.test(value) ? Number(value) : undefined;
  };
  return new FakeControl({
    bootMs: ms('FAKE_PROVIDER_BOOT_MS'),
    databaseStartMs: ms('FAKE_PROVIDER_DATABASE_START_MS'),
    latencyMs: ms('FAKE_PROVIDER_LATENCY_MS'),
    bootTimeoutMs: config.INSTANCE_BOOT_TIMEOUT_MS,
    bootLog: fakeBootLog(config.DATA_DIR),
    stateFile: fakeStateFile(config.DATA_DIR),
  });
}

/**
 * The FAKE provider (PROVIDER=fake): every driver in memory, for tests only
 * (the registry refuses it in production). Delays come from
 * FAKE_PROVIDER_BOOT_MS, FAKE_PROVIDER_DATABASE_START_MS and
 * FAKE_PROVIDER_LATENCY_MS; in-process tests inject failures through
 * FAKE_CONTROL.
 */
@Module({
  providers: [
    { provide: FAKE_CONTROL, inject: [AppConfig], useFactory: (config: AppConfig) => controlFromEnv(config) },
    { provide: FakeComputeDriver, inject: [FAKE_CONTROL], useFactory: (control: FakeControl) => new FakeComputeDriver(control) },
    { provide: COMPUTE_DRIVER, useExisting: FakeComputeDriver },
    {
      provide: VOLUME_DRIVER,
      inject: [FAKE_CONTROL, FakeComputeDriver],
      useFactory: (control: FakeControl, compute: FakeComputeDriver) => new FakeVolumeDriver(control, compute),
    },
    { provide: DATABASE_DRIVER, inject: [FAKE_CONTROL], useFactory: (control: FakeControl) => new FakeDatabaseDriver(control) },
    { provide: LOAD_BALANCER_DRIVER, inject: [FAKE_CONTROL], useFactory: (control: FakeControl) => new FakeLoadBalancerDriver(control) },
    { provide: NETWORK_DRIVER, inject: [FAKE_CONTROL], useFactory: (control: FakeControl) => new FakeNetworkDriver(control) },
    { provide: CATALOG_DRIVER, inject: [AppConfig], useFactory: (config: AppConfig) => new FakeCatalogDriver(config.LOCAL_ADDRESS_POOL) },
  ],
  exports: [CATALOG_DRIVER, COMPUTE_DRIVER, VOLUME_DRIVER, DATABASE_DRIVER, LOAD_BALANCER_DRIVER, NETWORK_DRIVER, FAKE_CONTROL],
})
export class FakeProviderModule {}
