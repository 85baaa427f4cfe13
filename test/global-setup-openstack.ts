import './paths';
import { loadConfig } from '@stratus/core';
import { ensureTestbedKeypair, ensureTestbedUp, releaseTestbedResourcesOf, resolveTestbedFixtures, testbedKeypair, testDataSource, testEnv } from '@stratus/testing';
import { setUpInstallation } from './global-setup';

/**
 * The e2e-openstack project's global setup: the testbed up, what an earlier
 * run left in it gone, the slot's keypair there (before the catalog is
 * mirrored, so the installation has it), then the e2e setup on the openstack
 * installation, and the testbed's ids for the suites' catalog fixtures.
 */
export default async function globalSetup(): Promise<void> {
  ensureTestbedUp();
  await releaseTestbedResourcesOf(loadConfig(testEnv({}, 'openstack')).DATABASE_URL);
  await ensureTestbedKeypair(testbedKeypair());
  await setUpInstallation('openstack');
  const db = await testDataSource(testEnv({}, 'openstack'));
  try {
    await resolveTestbedFixtures(db);
  } finally {
    await db.destroy();
  }
}
