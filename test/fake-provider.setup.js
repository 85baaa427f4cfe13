// The e2e-fake project's suites run on the fake provider (providerUnderTest() in
// libs/testing reads this). Jest gives each test file a copy of the environment,
// so this does not reach the e2e project's files in the same run.
process.env.STRATUS_TEST_PROVIDER = 'fake';
