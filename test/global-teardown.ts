import './paths';
import { loadConfig, ProviderName } from '@stratus/core';
import { killDatabaseServersUnder, killInstancesUnder, removeInstallationAccounts, removePacketFilterOf, testEnv, unmountUnder } from '@stratus/testing';
import { join } from 'node:path';

/** Instances, database servers and host accounts the suites made on `provider`'s installation do not outlive the run. */
export async function tearDownInstallation(provider: ProviderName): Promise<void> {
  const config = loadConfig(testEnv({}, provider));
  await killInstancesUnder(join(config.DATA_DIR, 'instances'));
  killDatabaseServersUnder(config.DATA_DIR);
  unmountUnder(config.DATA_DIR);
  await removePacketFilterOf(config.DATA_DIR);
  await removeInstallationAccounts(config.DATA_DIR);
}

export default function globalTeardown(): Promise<void> {
  return tearDownInstallation('local');
}
