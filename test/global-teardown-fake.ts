import { tearDownInstallation } from './global-teardown';

/** The e2e-fake project's global teardown: the e2e one, on the fake provider's installation (a file of its own: see global-setup-fake.ts). */
export default function globalTeardown(): Promise<void> {
  return tearDownInstallation('fake');
}
