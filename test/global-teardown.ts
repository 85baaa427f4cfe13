import './paths';
import { loadConfig } from '@stratus/core';
import { killDatabaseServersUnder, killInstancesUnder, removeInstallationAccounts, removePacketFilterOf, testEnv, unmountUnder } from '@stratus/testing';
import { join } from 'node:path';

/** Instances, database servers and host accounts the suites made do not outlive the run. */
export default async function globalTeardown(): Promise<void> {
  const config = loadConfig(testEnv());
  await killInstancesUnder(join(config.DATA_DIR, 'instances'));
  killDatabaseServersUnder(config.DATA_DIR);
  unmountUnder(config.DATA_DIR);
  await removePacketFilterOf(config.DATA_DIR);
  await removeInstallationAccounts(config.DATA_DIR);
}
