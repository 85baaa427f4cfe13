import './paths';
import { resetTestInstallation } from '@stratus/testing';

/** A clean test installation: fresh database, empty queues, no instance left from an earlier run. */
export default async function globalSetup(): Promise<void> {
  await resetTestInstallation();
}
