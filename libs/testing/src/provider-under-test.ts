import { ProviderName } from '@stratus/core';

/**
 * The provider the e2e suites run the stack's worker on: the `e2e` jest
 * project runs them on `local` (real processes), `e2e-fake` on `fake`
 * (every driver in memory; test/fake-provider.setup.js sets
 * STRATUS_TEST_PROVIDER for its test files only). A suite may still start
 * a stack with PROVIDER of its own (test/instance-boot.e2e-spec.ts).
 */
export function providerUnderTest(): ProviderName {
  return process.env.STRATUS_TEST_PROVIDER === 'fake' ? 'fake' : 'local';
}

/** Whether the stack's resources are real: processes that listen, files in an instance's home, servers a client can connect to. */
export function realResources(): boolean {
  return providerUnderTest() === 'local';
}

/**
 * `it` under the local provider, `it.skip` under the fake one. For a test
 * whose claim is what only a real process shows: a TCP/HTTP answer from
 * an instance, bytes through a route to one, a psql or redis client
 * connecting with the issued credentials, files in an instance's home or
 * on a mounted volume, a process killed and restarted. The fake provider
 * starts no process, so under it there is nothing to connect to or kill;
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
