// The OpenStack-backed specs (*.os-spec.ts): the openstack provider's
// drivers against the real OpenStack of scripts/openstack-testbed, which
// the global setup brings up when it is not. Run by `npm run
// test:openstack`; `npm test` and the other projects never match them.
// Beside them, project e2e-openstack runs end-to-end suites of test/ again
// with the worker on the openstack provider, as e2e-fake does on the fake one.
const base = require('./jest.config.js');
const unit = base.projects.find((p) => p.displayName === 'unit');

/**
 * The e2e suites e2e-openstack runs: those whose resources the testbed's
 * drivers make (compute, network, volumes, load balancers: gateway routes
 * and proxy hosts on Octavia, database servers under databases, cache and
 * analytics, and their password resets, clusters: members as Nova
 * servers, their balancer on Octavia). A suite joins by its name here once
 * its provider's drivers are built; its catalog references come from
 * catalogFixtures() in libs/testing, and its checks that need a data path
 * (itReal, whenReal) are skipped, as nothing may connect to the testbed's
 * tenant addresses; what the cloud keeps instead is checked (whenOpenStack,
 * providerListener).
 */
const OPENSTACK_SUITES = ['instances', 'volumes', 'gateway', 'dns', 'databases', 'cache', 'analytics', 'password-reset', 'clusters'];

module.exports = {
  testTimeout: 300_000,
  projects: [
    {
      displayName: 'openstack',
      testMatch: ['<rootDir>/libs/**/*.os-spec.ts', '<rootDir>/test/**/*.os-spec.ts'],
      transform: unit.transform,
      transformIgnorePatterns: unit.transformIgnorePatterns,
      moduleNameMapper: unit.moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/openstack.global-setup.ts',
    },
    {
      displayName: 'e2e-openstack',
      testMatch: OPENSTACK_SUITES.map((name) => `<rootDir>/test/${name}.e2e-spec.ts`),
      transform: unit.transform,
      transformIgnorePatterns: unit.transformIgnorePatterns,
      moduleNameMapper: unit.moduleNameMapper,
      testEnvironment: 'node',
      setupFiles: ['<rootDir>/test/openstack-provider.setup.js'],
      // The testbed up, and the e2e setup and teardown on the openstack provider's installation (see testEnv).
      globalSetup: '<rootDir>/test/global-setup-openstack.ts',
      globalTeardown: '<rootDir>/test/global-teardown-openstack.ts',
    },
  ],
};
