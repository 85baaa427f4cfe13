/**
 * gateway-create: how long POST /api/cloud/gateway/create takes to answer
 * (it answers once the route serves) and DELETE /api/cloud/gateway/routes/:port,
 * against the compiled api, worker and edge of a test slot, one at a time:
 * BENCH_ROUTES (50) creates, each followed by its delete, on ports cycling
 * through the first BENCH_PORTS (20) of the range, after BENCH_WARMUP (5).
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. Prints one JSON object; progress to stderr. See bench/README.md.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { createTenant, DEMO_INSTANCE, resetTestInstallation, TestStack, testDataSource, waitFor, waitForInstance } from '@stratus/testing';
import { latencySummary as summary } from './percentiles';

const ROUTES = Number(process.env.BENCH_ROUTES || 50);
const PORTS = Number(process.env.BENCH_PORTS || 20);
const WARMUP = Number(process.env.BENCH_WARMUP || 5);

const log = (m: string) => process.stderr.write(`[bench:gateway-create] ${m}\n`);

async function main(): Promise<void> {
  log(`resetting test slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({}, ['api', 'worker', 'edge']);
  const db = await testDataSource();
  try {
    const tenant = await createTenant(db);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const cloud = stack.http.with({ authorization: `Bearer ${tenant.token}` });
    const created = await api.post('/v1/instances', { name: 'bench-gw', ...DEMO_INSTANCE });
    if (created.status !== 202 && created.status !== 200) throw new Error(`instance create: ${created.status} ${created.text}`);
    const instance = await waitForInstance(api, created.body.id);
    const from = Number(stack.env.GATEWAY_PORT_RANGE.split('-')[0]);
    const creates: number[] = [];
    const deletes: number[] = [];
    for (let i = 0; i < WARMUP + ROUTES; i++) {
      const port = from + (i % PORTS);
      let t = performance.now();
      const res = await cloud.post('/api/cloud/gateway/create', { targetIp: instance.metadata.privateIp, targetPort: 3000, protocol: 'tcp', port });
      const createMs = performance.now() - t;
      if (res.status !== 200) throw new Error(`create on ${port}: ${res.status} ${res.text}`);
      t = performance.now();
      const gone = await stack.http.delete(`/api/cloud/gateway/routes/${port}`);
      const deleteMs = performance.now() - t;
      if (gone.status !== 200) throw new Error(`delete on ${port}: ${gone.status} ${gone.text}`);
      if (i < WARMUP) continue;
      creates.push(createMs);
      deletes.push(deleteMs);
    }
    // Its process goes with it: a later run of the slot would find its address taken.
    await api.delete(`/v1/instances/${instance.id}`);
    await waitFor('the instance to be deleted', async () => (await api.get(`/v1/instances/${instance.id}`)).status === 404, { timeoutMs: 60_000 });
    const result = { routes: ROUTES, create: summary(creates), delete: summary(deletes) };
    log(JSON.stringify(result));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stack.stop();
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
