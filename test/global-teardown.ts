import './paths';
import { loadConfig } from '@stratus/core';
import { killInstancesUnder, testEnv } from '@stratus/testing';
import { join } from 'node:path';

/** Instances the suites started do not outlive the run. */
export default async function globalTeardown(): Promise<void> {
  const config = loadConfig(testEnv());
  killInstancesUnder(join(config.DATA_DIR, 'instances'));
}
