import './paths';
import type { ProviderName } from '@stratus/core';
import { resetTestInstallation } from '@stratus/testing';

/** A clean test installation for `provider` (each has its own, see testEnv): fresh database, empty queues, no instance left from an earlier run. */
export async function setUpInstallation(provider: ProviderName): Promise<void> {
  await resetTestInstallation({}, provider);
}

export default function globalSetup(): Promise<void> {
  return setUpInstallation('local');
}
