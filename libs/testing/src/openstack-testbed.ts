import { AppConfig } from '@stratus/core';
import { OpenStackClient, OpenStackClientOptions, OpenStackCloud, resolveCloud } from '@stratus/providers';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The project's root, and the testbed's state folder in it (scripts/openstack-testbed/testbed.sh). */
const ROOT = resolve(__dirname, '../../..');
export const TESTBED_DIR = process.env.OPENSTACK_TESTBED_DIR ?? join(ROOT, '.data/openstack');
const SCRIPT = join(ROOT, 'scripts/openstack-testbed/testbed.sh');

/** Every OS_* setting empty: what AppConfig holds when none is set. */
const UNSET: Parameters<typeof resolveCloud>[0] = {
  OS_CLOUD: '',
  OS_CLIENT_CONFIG_FILE: '',
  OS_AUTH_URL: '',
  OS_AUTH_TYPE: '',
  OS_USERNAME: '',
  OS_USER_ID: '',
  OS_PASSWORD: '',
  OS_PROJECT_NAME: '',
  OS_PROJECT_ID: '',
  OS_USER_DOMAIN_NAME: '',
  OS_PROJECT_DOMAIN_NAME: '',
  OS_REGION_NAME: '',
  OS_INTERFACE: '',
  OS_APPLICATION_CREDENTIAL_ID: '',
  OS_APPLICATION_CREDENTIAL_NAME: '',
  OS_APPLICATION_CREDENTIAL_SECRET: '',
};

/**
 * The settings that point the provider at the testbed: its clouds.yaml, as
 * an operator would, and OPENSTACK_DATA_PATH=false, the simulation of
 * readiness the fake virt driver needs (its servers boot nothing, so no
 * engine ever answers on their addresses).
 */
export function testbedSettings(cloud = 'stratus-testbed'): Pick<AppConfig, 'OS_CLOUD' | 'OS_CLIENT_CONFIG_FILE'> & { OPENSTACK_DATA_PATH: 'false' } {
  return { OS_CLOUD: cloud, OS_CLIENT_CONFIG_FILE: join(TESTBED_DIR, 'clouds.yaml'), OPENSTACK_DATA_PATH: 'false' };
}

/** The testbed's cloud as the provider reads it: `stratus-testbed` (the project's user) or `stratus-testbed-admin`. */
export function testbedCloud(cloud = 'stratus-testbed', overrides: Partial<typeof UNSET> = {}): OpenStackCloud {
  return resolveCloud({ ...UNSET, ...testbedSettings(cloud), ...overrides });
}

export function testbedClient(cloud = 'stratus-testbed', options: OpenStackClientOptions = {}): OpenStackClient {
  return new OpenStackClient(testbedCloud(cloud), options);
}

/** Brings the testbed up unless every daemon of it runs already (the first time installs it: minutes). */
export function ensureTestbedUp(): void {
  try {
    execFileSync('bash', [SCRIPT, 'status'], { stdio: 'ignore' });
  } catch {
    execFileSync('bash', [SCRIPT, 'up'], { stdio: 'inherit' });
  }
}
