import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppConfig, loadConfig } from '@stratus/core';
import {
  CATALOG_DRIVER,
  CatalogDriver,
  COMPUTE_DRIVER,
  ComputeDriver,
  createCatalogDriver,
  DATABASE_DRIVER,
  DatabaseDriver,
  LOAD_BALANCER_DRIVER,
  LoadBalancerDriver,
  ProvidersModule,
} from '@stratus/providers';
import { testbedSettings } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { OpenStackComputeDriver } from './openstack-compute.driver';
import { OpenStackLoadBalancerDriver } from './openstack-load-balancer.driver';
import { OpenStackDatabaseDriver } from './openstack-database.driver';

/** PROVIDER=openstack as the worker loads it: the registry's module, configured from the settings alone. */
describe('openstack provider, as the worker loads it', () => {
  const config = loadConfig({ PROVIDER: 'openstack', ...testbedSettings(), OPENSTACK_NETWORK: 'stratus-net' });

  @Global()
  @Module({ providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] })
  class TestConfigModule {}

  it('gives every driver from OS_CLOUD and clouds.yaml; the unbuilt ones say so', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TestConfigModule, ProvidersModule.forRoot(config)] }).compile();
    const catalog = moduleRef.get<CatalogDriver>(CATALOG_DRIVER);
    expect((await catalog.catalog()).flavors.map((f) => f.name)).toContain('m1.tiny');
    const compute = moduleRef.get<ComputeDriver>(COMPUTE_DRIVER);
    expect(compute).toBeInstanceOf(OpenStackComputeDriver);
    expect(await compute.observe(randomUUID())).toBeNull();
    const balancers = moduleRef.get<LoadBalancerDriver>(LOAD_BALANCER_DRIVER);
    expect(balancers).toBeInstanceOf(OpenStackLoadBalancerDriver);
    expect(await balancers.listenerIds(randomUUID())).toEqual([]);
    expect(await balancers.observe(randomUUID())).toBeNull();
    const databases = moduleRef.get<DatabaseDriver>(DATABASE_DRIVER);
    expect(databases).toBeInstanceOf(OpenStackDatabaseDriver);
    expect(await databases.observe(`postgres-${randomUUID()}`)).toBeNull();
    await moduleRef.close();
  });

  it("the setup's catalog (before any process starts) reads the same cloud", async () => {
    const networks = (await createCatalogDriver(config).catalog()).networks;
    expect(networks).toContainEqual(expect.objectContaining({ name: 'stratus-net', cidr: '10.0.0.0/24' }));
  });
});
