import { OpenStackClient } from '@stratus/providers';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { HttpClient } from './http-client';
import { resetTestInstallation } from './installation';
import { ensureTestbedKeypair, releaseTestbedResourcesOf, removeTestbedKeypair, testbedClient, testbedInstallation } from './openstack-testbed';
import { TestStack } from './stack';
import { createTenant, Tenant, testConfig, testDataSource } from './tenants';

export interface OpenStackSuiteOptions {
  /**
   * A Neutron security group of the suite's own, with these rules besides
   * Neutron's default egress ones, made before the installation mirrors the
   * catalog (so the installation lists it).
   */
  securityGroup?: { description: string; rules: Array<Record<string, string | number>> };
}

export interface OpenStackSuite {
  /** The installation the stack and `db` run on (testbedInstallation()): set at once. */
  overrides: Record<string, string>;
  /** The testbed as the project's user (Nova, Neutron, Octavia, ...): set at once. */
  cloud: OpenStackClient;
  /** The name of a Nova keypair of the suite's own: set at once, made when the suite starts. */
  keypair: string;
  stack: TestStack;
  db: DataSource;
  /** The tenant the suite acts as, and its `/v1` client. */
  owner: Tenant;
  api: HttpClient;
  /** The group `options.securityGroup` asked for. */
  securityGroup?: { id: string; name: string };
}

/**
 * The OpenStack-backed end-to-end set-up (the specs of test/openstack), as
 * `useSuite` is the local one's: before the suite's tests, a keypair (and
 * the security group asked for) in the testbed, then a fresh installation
 * of this slot whose catalog mirrors them, its compiled api and worker, a
 * data source and an owner; after them, the processes stopped and what the
 * installation still lists released from the shared testbed, before the
 * keypair and group its servers use. The returned object is filled in once
 * the suite starts.
 */
export function useOpenStackSuite(options: OpenStackSuiteOptions = {}): OpenStackSuite {
  const suite = { overrides: testbedInstallation(), cloud: testbedClient(), keypair: `e2e-${randomUUID()}` } as OpenStackSuite;
  const { overrides, cloud, keypair } = suite;

  beforeAll(async () => {
    // A run stopped before its teardown left what its database lists: the reset below would drop that list.
    await releaseTestbedResourcesOf(overrides.DATABASE_URL);
    // The catalog mirror wants a keypair in the project (with none it has nothing to keep, and refuses an empty delete).
    await ensureTestbedKeypair(keypair);
    if (options.securityGroup) {
      const { description, rules } = options.securityGroup;
      const name = `e2e-${randomUUID()}`;
      const { security_group: group } = await cloud.post<{ security_group: { id: string } }>('network', '/security-groups', { security_group: { name, description } });
      suite.securityGroup = { id: group.id, name };
      // Each rule as POST /security-group-rules takes it, but for the group it goes in.
      for (const rule of rules) await cloud.post('network', '/security-group-rules', { security_group_rule: { ...rule, security_group_id: group.id } });
    }
    await resetTestInstallation(overrides, 'local');
    suite.stack = await TestStack.start(overrides);
    suite.db = await testDataSource(overrides);
    suite.owner = await createTenant(suite.db, undefined, testConfig(overrides));
    suite.api = suite.stack.http.with({ 'x-api-key': suite.owner.apiKey });
  });

  afterAll(async () => {
    try {
      await suite.stack?.stop();
      await suite.db?.destroy();
    } finally {
      // What a failed test left (servers and their ports) goes before what they use: a group on a port cannot go.
      await releaseTestbedResourcesOf(overrides.DATABASE_URL);
      await removeTestbedKeypair(keypair);
      if (suite.securityGroup) await cloud.delete('network', `/security-groups/${suite.securityGroup.id}`);
    }
  });

  return suite;
}
