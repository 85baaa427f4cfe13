// The OpenStack-backed specs (*.os-spec.ts): the openstack provider's
// drivers against the real OpenStack of scripts/openstack-testbed, which
// the global setup brings up when it is not. Run by `npm run
// test:openstack`; `npm test` and the other projects never match them.
const base = require('./jest.config.js');
const unit = base.projects.find((p) => p.displayName === 'unit');

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
  ],
};
