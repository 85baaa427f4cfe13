import { ProviderName } from '@stratus/core';
import { BackendSpec, BackendState, ListenerSpec, MARK, OpenStackLoadBalancerDriver, serversOf } from '@stratus/providers';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { savedFakeListener, savedFakeListeners } from './fake-provider/fake-load-balancer.driver';
import { fakeStateFile } from './fake-provider/fake-provider.module';
import { testbedClient } from './openstack-testbed';
import { instanceLeadersUnder } from './processes';

/**
 * The provider the e2e suites run the stack's worker on: the `e2e` jest
 * project runs them on `local` (real processes), `e2e-fake` on `fake`
 * (every driver in memory; test/fake-provider.setup.js sets
 * STRATUS_TEST_PROVIDER for its test files only), and `e2e-openstack`
 * (jest.openstack.config.js) on `openstack`, against the testbed's real
 * OpenStack. A suite about the fake provider itself
 * (test/instance-boot.e2e-spec.ts) runs in e2e-fake only: a worker of one
 * provider on the other's installation would meet its rows, catalog and
 * addresses.
 */
export function providerUnderTest(): ProviderName {
  const named = process.env.STRATUS_TEST_PROVIDER;
  return named === 'fake' || named === 'openstack' ? named : 'local';
}

/**
 * Whether the stack's resources are real: processes that listen, files in
 * an instance's home, servers a client can connect to. Not on the
 * openstack testbed either: its servers run on Nova's fake virt driver,
 * and their addresses exist only in Neutron's database (no data path).
 * So `!realResources()` does not mean the fake provider: a check that reads
 * the fake provider's state asks providerUnderTest() for `fake`.
 */
export function realResources(): boolean {
  return providerUnderTest() === 'local';
}

/**
 * `it` under the local provider, `it.skip` under the fake and openstack
 * ones. For a test whose claim is what only a real process shows: a
 * TCP/HTTP answer from an instance, bytes through a route to one, a psql
 * or redis client connecting with the issued credentials, files in an
 * instance's home or on a mounted volume, a process killed and restarted.
 * The fake provider starts no process, and nothing may connect to the
 * testbed's tenant addresses, so there is nothing to connect to or kill;
 * what such a test checks of statuses and shapes is checked by the
 * provider-neutral tests beside it.
 */
export const itReal: jest.It = ((...args: Parameters<jest.It>) => (realResources() ? it : it.skip)(...args)) as jest.It;
Object.assign(itReal, { each: (...table: any[]) => (realResources() ? it.each : it.skip.each)(...(table as [any])) });

/**
 * `it` wherever the edge runs, `it.skip` on OpenStack: for a test of the
 * edge itself (its HAProxy processes, the ports it holds). Under the fake
 * provider too the edge runs, though it is not the load balancer; on
 * OpenStack the cloud's load balancers are, and no edge runs
 * (AppConfig.edgeBalances).
 */
export const itWithEdge: jest.It = ((...args: Parameters<jest.It>) => (providerUnderTest() === 'openstack' ? it.skip : it)(...args)) as jest.It;

/**
 * Runs `check` under the local provider only (see itReal for why): for
 * the assertions of a test that need a real process, while the rest of
 * the test (statuses, shapes, status codes) runs under both.
 */
export async function whenReal(check: () => unknown): Promise<void> {
  if (realResources()) await check();
}

/**
 * The address the stack's network driver holds for `id` (an instance id, or
 * a database server's key) now, or null: the lease table of the local
 * provider, the fixed IP of the Neutron port named after it on the
 * testbed, or what the fake provider's worker saved in its state file.
 */
export async function addressHeld(db: DataSource, dataDir: string, id: string): Promise<string | null> {
  if (providerUnderTest() === 'openstack') {
    const { ports } = await testbedClient().get<{ ports: Array<{ fixed_ips: Array<{ ip_address: string }> }> }>('network', '/ports', { query: { name: MARK.name(id) } });
    return ports[0]?.fixed_ips[0]?.ip_address ?? null;
  }
  if (providerUnderTest() === 'local') {
    const [row] = await db.query('SELECT host(address) AS address FROM address_leases WHERE resource_id = $1', [id]);
    return row?.address ?? null;
  }
  let state: { addresses?: Record<string, { address: string }> };
  try {
    state = JSON.parse(readFileSync(fakeStateFile(dataDir), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return state.addresses?.[id]?.address ?? null;
}

/**
 * Takes every free address of the local provider's `cidr` for the length of
 * `body` (rows of the lease table under resource ids `fill-<n>`): a network
 * with no room left. Local provider only.
 */
export async function withFullNetwork<T>(db: DataSource, cidr: string, body: () => Promise<T>): Promise<T> {
  await db.query(
    `INSERT INTO address_leases (address, resource_kind, resource_id)
     SELECT host(network($1::cidr) + n)::inet, 'test', 'fill-' || n FROM generate_series(1, $2::int) n ON CONFLICT DO NOTHING`,
    [cidr, 2 ** (32 - Number(String(cidr).split('/')[1])) - 2],
  );
  try {
    return await body();
  } finally {
    await db.query(`DELETE FROM address_leases WHERE resource_id LIKE 'fill-%'`);
  }
}

/**
 * Runs `check` unless the provider under test is the fake one: for what a
 * provider backs a resource with (an instance's process or Nova server, a
 * volume's disk file or Cinder volume), which the local provider and the
 * testbed both have and the fake provider, all in its worker's memory, has
 * not.
 */
export async function whenBacked(check: () => unknown): Promise<void> {
  if (providerUnderTest() !== 'fake') await check();
}

/**
 * Runs `check` under the openstack provider only: for what the testbed's own
 * API shows in place of a data path (what Nova keeps of a database server's
 * credential), where the local provider's tests log in (whenReal) and the
 * fake provider keeps nothing to look at.
 */
export async function whenOpenStack(check: () => unknown): Promise<void> {
  if (providerUnderTest() === 'openstack') await check();
}

/** Whether something runs behind instance `id` on the provider under test: its process group (local), its Nova server (openstack). */
export async function instanceBacked(dataDir: string, id: string): Promise<boolean> {
  if (providerUnderTest() === 'openstack') return (await serversOf(testbedClient(), id)).length > 0;
  return instanceLeadersUnder(join(dataDir, 'instances')).has(id);
}

/** The size in GiB of what backs volume `id` on the provider under test (its disk file, its Cinder volume), or null when nothing does. */
export async function volumeBackingGb(dataDir: string, id: string): Promise<number | null> {
  if (providerUnderTest() === 'openstack') {
    const { volumes } = await testbedClient().get<{ volumes: Array<{ size: number; status: string; metadata?: Record<string, string> }> }>('block-storage', '/volumes/detail', {
      query: { name: MARK.name(id) },
    });
    const mine = volumes.filter((v) => v.metadata?.[MARK.idKey] === id && v.status !== 'deleting');
    // Two would be a create made twice: never an answer.
    if (mine.length > 1) throw new Error(`${mine.length} Cinder volumes for volume ${id}`);
    return mine[0]?.size ?? null;
  }
  try {
    return statSync(join(dataDir, 'volumes', id, 'disk.img')).size / 1024 ** 3;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** A listener as a provider holds it: what a suite that cannot connect to it checks. */
export interface HeldListener {
  spec: ListenerSpec;
  backends: Array<BackendSpec & { state: BackendState }>;
}

/**
 * Listener `id` as the provider under test holds it, or null while it has
 * none (or none made whole yet): what its worker on the fake provider last
 * saved, or what Octavia holds on the testbed, read through the openstack
 * provider's own driver. Not under the local provider: its listeners
 * answer, so a suite connects to them instead.
 */
export async function providerListener(dataDir: string, id: string): Promise<HeldListener | null> {
  if (providerUnderTest() === 'fake') return savedFakeListener(fakeStateFile(dataDir), id);
  const seen = await octavia().observe(id);
  return seen?.spec ? { spec: seen.spec, backends: seen.backends } : null;
}

/** Every listener whose id starts with `prefix` that the provider under test holds (see providerListener). */
export async function providerListeners(dataDir: string, prefix: string): Promise<HeldListener[]> {
  if (providerUnderTest() === 'fake') return savedFakeListeners(fakeStateFile(dataDir)).filter((l) => l.spec.id.startsWith(prefix));
  const held = await Promise.all((await octavia().listenerIds(prefix)).map((id) => providerListener(dataDir, id)));
  return held.filter((l): l is HeldListener => l !== null);
}

function octavia(): OpenStackLoadBalancerDriver {
  if (providerUnderTest() !== 'openstack') throw new Error('under the local provider a listener is checked by connecting to it');
  return new OpenStackLoadBalancerDriver(testbedClient());
}
