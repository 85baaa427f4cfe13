import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TESTBED_NETWORK, testbedGatewaySettings, testbedSettings } from './openstack-testbed';
import { providerUnderTest } from './provider-under-test';

/**
 * The repository (the folder with package.json) above this file, whether it
 * runs from the sources (jest) or compiled under dist/ (the benchmarks).
 */
export const REPO_ROOT = findRepoRoot(__dirname);

function findRepoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${from}`);
    dir = up;
  }
  return dir;
}

/**
 * `.data/test` in the repository, unless the unprivileged run user could not
 * reach it there (a checkout under a private home folder): then a folder of
 * this checkout's own under the system's temporary folder.
 */
function testDataDir(suffix: string): string {
  if (reachableByOthers(REPO_ROOT)) return join(REPO_ROOT, '.data', `test${suffix}`);
  const checkout = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);
  return join(tmpdir(), `stratus-test-${checkout}${suffix}`);
}

function reachableByOthers(dir: string): boolean {
  for (let d = dir; d !== dirname(d); d = dirname(d)) if ((statSync(d).mode & 0o001) === 0) return false;
  return true;
}

/**
 * First octet after 127 of the loopback block of the installation the
 * `e2e-fake` project runs on (slot n adds n). Nothing listens on its
 * addresses, and they must never be those of an instance the local run
 * left running on the slot's block: a fake instance would then "answer".
 */
const FAKE_PROVIDER_BLOCK = 120;

/**
 * The environment every test process runs with: its own database, queue
 * prefix, data folder and loopback block, so a test run never touches a
 * development installation on the same machine. Under the fake provider
 * (`provider`, the e2e-fake project's) it is an installation of its own
 * too, with PROVIDER=fake: the two projects' suites interleave in one run,
 * and a local worker reconciling a fake instance's row (ACTIVE, nothing
 * running) would start a process for it, a fake worker would lose track
 * of a local instance. Under the openstack provider (the e2e-openstack
 * project's) it is one of its own as well, with PROVIDER=openstack and the
 * testbed's clouds.yaml; the OpenStack-backed specs of the `openstack`
 * project keep theirs apart (`-openstack`).
 */
export function testEnv(overrides: Record<string, string> = {}, provider = providerUnderTest()): Record<string, string> {
  // STRATUS_TEST_SLOT (0-9) lets several test runs share a machine without meeting.
  const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
  const fake = provider === 'fake';
  const openstack = provider === 'openstack';
  const suffix = `${slot ? `-${slot}` : ''}${fake ? '-fake' : ''}${openstack ? '-e2e-openstack' : ''}`;
  return {
    NODE_ENV: 'test',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/stratus_test${suffix.replaceAll('-', '_')}`,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `stratus-test${suffix}`,
    DATA_DIR: testDataDir(suffix),
    LOCAL_ADDRESS_POOL: `127.${(fake ? FAKE_PROVIDER_BLOCK : 78) + slot}.0.0/16`,
    ...(fake ? { PROVIDER: 'fake' } : {}),
    // Nova's fake virt driver boots in seconds, but a loaded testbed can keep a server in BUILD for minutes.
    ...(openstack ? { PROVIDER: 'openstack', ...testbedSettings(), OPENSTACK_NETWORK: TESTBED_NETWORK, ...testbedGatewaySettings(), INSTANCE_BOOT_TIMEOUT_MS: '180000' } : {}),
    // Gateway route ports of this slot only: 2<slot>000-2<slot>999 (slots past 9 go on from 30000).
    GATEWAY_PORT_RANGE: `${20_000 + slot * 1_000}-${20_999 + slot * 1_000}`,
    EDGE_THREADS: '2',
    // Workers of parallel suites would race for one metrics port; a suite that scrapes one names its own.
    WORKER_METRICS_LISTEN: 'off',
    // The api waits this long for the edge to serve a new route: a loaded machine's edge can take
    // more than the 5 s default, and no suite waits on the edge being absent. A route's first
    // listener on the testbed makes an Octavia load balancer, a change at a time.
    GATEWAY_BIND_TIMEOUT_MS: openstack ? '180000' : '30000',
    // Under jest a suite runs several installations' processes and its own
    // data sources on the machine's PostgreSQL, and another slot's suite may
    // run beside it: small pools keep both under its max_connections (100).
    // Benchmarks keep the production pools they measure.
    ...(process.env.JEST_WORKER_ID !== undefined ? { DATABASE_POOL_MAX: '10', DATABASE_POOL_MIN: '2' } : {}),
    // Rate limits and quotas are checked on every request and create, but the
    // suites and benches that load the api (fuzz, fault's 200 creates, the
    // throughput bench) stay under them; the suites about limits set their own.
    RATE_LIMIT_CREDENTIAL_PER_SECOND: '1000000',
    RATE_LIMIT_CREDENTIAL_BURST: '1000000',
    RATE_LIMIT_PROJECT_PER_SECOND: '1000000',
    RATE_LIMIT_PROJECT_BURST: '1000000',
    QUOTA_INSTANCES: '1000000',
    QUOTA_PROXY_HOSTS: '1000000',
    QUOTA_GATEWAY_ROUTES: '1000000',
    QUOTA_VOLUME_GB: '100000000',
    LOG_LEVEL: 'info',
    RECONCILE_INTERVAL_MS: '2000',
    OUTBOX_RELAY_INTERVAL_MS: '1000',
    ...overrides,
  };
}

/**
 * First octets after 127 of the loopback blocks that suites give the
 * installations they start beside the slot's own (slot n adds n). Each is a
 * /16 of its own: instances outlive the suite that made them, so a second
 * installation leasing from the slot's block would meet their addresses, and
 * each installation's packet filter judges its whole block.
 */
const SECOND_INSTALLATION_BLOCKS = { start: 88, installations: 100, dependencies: 110 } as const;

/** The address pool of a second installation a suite starts (see SECOND_INSTALLATION_BLOCKS). */
export function secondInstallationPool(name: keyof typeof SECOND_INSTALLATION_BLOCKS): string {
  const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
  return `127.${SECOND_INSTALLATION_BLOCKS[name] + slot}.0.0/16`;
}

/** Applies the test environment to this process (for code that calls loadConfig()). */
export function useTestEnv(): void {
  Object.assign(process.env, testEnv());
}
