import { setUpInstallation } from './global-setup';

/**
 * The e2e-fake project's global setup: the e2e one, on the fake provider's installation.
 * A file of its own because jest runs a global setup file once per run, however many
 * projects name it (with the first one's config).
 */
export default function globalSetup(): Promise<void> {
  return setUpInstallation('fake');
}
