import './paths';
import { loadConfig } from '@stratus/core';
import { killDatabaseServersUnder, killInstancesUnder, removePacketFilterOf, testEnv, unmountUnder } from '@stratus/testing';
import { join } from 'node:path';

/** Instances and database servers the suites started do not outlive the run. */
export default async function globalTeardown(): Promise<void> {
  const config = loadConfig(testEnv());
  await killInstancesUnder(join(config.DATA_DIR, 'instances'));
  killDatabaseServersUnder(config.DATA_DIR);
  unmountUnder(config.DATA_DIR);
  await removePacketFilterOf(config.DATA_DIR);
}
