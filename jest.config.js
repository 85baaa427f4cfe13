// Four projects: unit specs beside the code (*.spec.ts) that need nothing but
// Node; integration specs beside the code (*.int-spec.ts) that need what a
// host provides (HAProxy, nft, root, PostgreSQL, Redis, the compiled dist);
// end-to-end suites under test/ that run the compiled api and worker as real
// processes; and those of them about resources a provider makes, run again
// with the worker on the fake provider (statuses move, no process is started).
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
/**
 * The suites e2e-fake runs: the resources of every driver the fake provider
 * has (compute, volumes, load balancers under the gateway and DNS, database
 * servers under databases, cache, analytics and relational-databases, and
 * their password resets).
 */
const FAKE_PROVIDER_SUITES = ['instances', 'volumes', 'gateway', 'dns', 'databases', 'cache', 'analytics', 'relational-databases', 'password-reset'];
/**
 * Suites about the fake provider itself (its timed boots and starts), run by
 * e2e-fake only: on the e2e installation a fake worker would replace the
 * catalog and hand out addresses the local provider also leases there.
 */
const FAKE_PROVIDER_ONLY = ['instance-boot'];
/**
 * Dependencies published as ES modules only (jose under jwks-rsa,
 * content-disposition under the dashboard's @fastify/static): Node loads them
 * from CommonJS, jest does not, so they are compiled like our sources. Then a
 * spec can build the api's module in its own process.
 */
const ESM_ONLY = ['jose', 'content-disposition'];
const transform = { '^.+\\.ts$': swc, [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: swc };
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`];
const moduleNameMapper = {
  '^@stratus/(core|queue|providers|testing)$': '<rootDir>/libs/$1/src',
};

module.exports = {
  testTimeout: 120_000,
  // The password leak check goes last: it reads what every earlier suite was issued.
  testSequencer: '<rootDir>/test/sequencer.js',
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/apps/**/*.int-spec.ts', '<rootDir>/libs/**/*.int-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: FAKE_PROVIDER_ONLY.map((name) => `/test/${name}\\.e2e-spec\\.ts$`),
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      displayName: 'e2e-fake',
      testMatch: [...FAKE_PROVIDER_SUITES, ...FAKE_PROVIDER_ONLY].map((name) => `<rootDir>/test/${name}.e2e-spec.ts`),
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      setupFiles: ['<rootDir>/test/fake-provider.setup.js'],
      setupFilesAfterEnv: ['<rootDir>/test/fake-provider.after-env.ts'],
      // The e2e setup and teardown, on the fake provider's own installation (see testEnv).
      globalSetup: '<rootDir>/test/global-setup-fake.ts',
      globalTeardown: '<rootDir>/test/global-teardown-fake.ts',
    },
  ],
};
