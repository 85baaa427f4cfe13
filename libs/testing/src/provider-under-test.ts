import { ProviderName } from '@stratus/core';
import { MARK } from '@stratus/providers';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { fakeStateFile } from './fake-provider/fake-provider.module';
import { testbedClient } from './openstack-testbed';

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
