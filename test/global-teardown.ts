import './paths';
import { loadConfig, ProviderName } from '@stratus/core';
import { tearDownInstallationAt, testEnv } from '@stratus/testing';

/** Instances, database servers and host accounts the suites made on `provider`'s installation do not outlive the run. */
export async function tearDownInstallation(provider: ProviderName): Promise<void> {
  await tearDownInstallationAt(loadConfig(testEnv({}, provider)).DATA_DIR);
}

export default function globalTeardown(): Promise<void> {
  return tearDownInstallation('local');
}
