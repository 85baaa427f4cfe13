import './paths';
import { loadConfig } from '@stratus/core';
import { releaseTestbedResourcesOf, removeTestbedKeypair, testbedKeypair, testEnv } from '@stratus/testing';
import { tearDownInstallation } from './global-teardown';

/** The e2e-openstack project's global teardown: nothing the suites made stays in the shared testbed, and nothing on the host. */
export default async function globalTeardown(): Promise<void> {
  await releaseTestbedResourcesOf(loadConfig(testEnv({}, 'openstack')).DATABASE_URL);
  await removeTestbedKeypair(testbedKeypair());
  await tearDownInstallation('openstack');
}
