import { DataSource } from 'typeorm';
import { HttpClient } from './http-client';
import { TestStack } from './stack';
import { createTenant, Tenant, testDataSource } from './tenants';

export interface Suite {
  stack: TestStack;
  db: DataSource;
  /** The tenant the suite acts as, and a second one for the cross-project cases. */
  owner: Tenant;
  other: Tenant;
  /** `/v1` and `/api/cloud` clients with the owner's credentials. */
  api: HttpClient;
  cloud: HttpClient;
}

/** The usual end-to-end set-up: the real processes, direct database access and two tenants. */
async function startSuite(overrides: Record<string, string> = {}, services?: Parameters<typeof TestStack.start>[1]): Promise<Suite> {
  const stack = await TestStack.start(overrides, services);
  const db = await testDataSource();
  const owner = await createTenant(db);
  const other = await createTenant(db);
  return {
    stack,
    db,
    owner,
    other,
    api: stack.http.with({ 'x-api-key': owner.apiKey }),
    cloud: stack.http.with({ authorization: `Bearer ${owner.token}` }),
  };
}

async function stopSuite(stack: TestStack | undefined, db: DataSource | undefined): Promise<void> {
  await stack?.stop();
  await db?.destroy();
}

/**
 * `startSuite` before the suite's tests and `stopSuite` after them; the
 * returned object is filled in once the suite starts.
 */
export function useSuite(overrides: Record<string, string> = {}, services?: Parameters<typeof TestStack.start>[1]): Suite {
  const suite = {} as Suite;
  beforeAll(async () => {
    Object.assign(suite, await startSuite(overrides, services));
  });
  afterAll(() => stopSuite(suite.stack, suite.db));
  return suite;
}
