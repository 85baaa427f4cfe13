// The e2e-openstack project's suites run on the openstack provider, against
// the testbed (providerUnderTest() in libs/testing reads this). Jest gives
// each test file a copy of the environment, so this reaches no other
// project's files.
process.env.STRATUS_TEST_PROVIDER = 'openstack';
