/**
 * dns-create: how long after POST /api/cloud/dns/create answers the edge
 * serves the new name, and after DELETE /api/cloud/dns/proxy-hosts/:id
 * answers it stops, against the compiled api, worker and edge of a test
 * slot, one at a time: BENCH_HOSTS (50) creates of a proxy host for one
 * `demo-web` instance, each followed by its delete, after BENCH_WARMUP (5).
 * The edge is asked for the name every millisecond or so from the moment
 * the request is sent.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. Prints one JSON object; progress to stderr. See bench/README.md.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { createTenant, DEMO_INSTANCE, resetTestInstallation, TestStack, testDataSource, waitFor, waitForInstance } from '@stratus/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { latencySummary as summary } from './percentiles';

const HOSTS = Number(process.env.BENCH_HOSTS || 50);
const WARMUP = Number(process.env.BENCH_WARMUP || 5);
/** A name that is not served within this long counts as a failure of the run. */
const GIVE_UP_MS = 30_000;

const log = (m: string) => process.stderr.write(`[bench:dns-create] ${m}\n`);

async function main(): Promise<void> {
  log(`resetting test slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({}, ['api', 'worker', 'edge']);
  const db = await testDataSource();
  const edge = `http://127.0.0.1:${stack.env.EDGE_HTTP_PORT}/`;
  /** The edge's status for `host`. */
  const status = async (host: string) => {
    const res = await request(edge, { headers: { host } });
    await res.body.dump();
    return res.statusCode;
  };
  /** Milliseconds from `start` until the edge answers `want` for `host`. */
  const until = async (host: string, want: (s: number) => boolean, start: number) => {
    while (!want(await status(host))) {
      if (performance.now() - start > GIVE_UP_MS) throw new Error(`the edge did not change for ${host} within ${GIVE_UP_MS} ms`);
      await sleep(1);
    }
    return performance.now() - start;
  };
  try {
    const tenant = await createTenant(db);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const cloud = stack.http.with({ authorization: `Bearer ${tenant.token}` });
    const created = await api.post('/v1/instances', { name: 'bench-dns', ...DEMO_INSTANCE });
    if (created.status !== 202 && created.status !== 200) throw new Error(`instance create: ${created.status} ${created.text}`);
    const instance = await waitForInstance(api, created.body.id);
    // The instance itself answers (200), not only the edge (502 before it listens).
    await waitFor('the instance to answer through the edge', async () => (await status(instance.metadata.domains)) === 200, { timeoutMs: 60_000 });
    const answered: number[] = [];
    const serving: number[] = [];
    const deleted: number[] = [];
    const gone: number[] = [];
    for (let i = 0; i < WARMUP + HOSTS; i++) {
      const domain = `bench-${i}-${Date.now().toString(36)}`;
      let t = performance.now();
      const res = await cloud.post('/api/cloud/dns/create', { instanceId: instance.id, forwardPort: 3000, domain });
      const answerMs = performance.now() - t;
      if (res.status !== 201) throw new Error(`create ${domain}: ${res.status} ${res.text}`);
      const host: string = res.body.domain;
      const servingMs = await until(host, (s) => s === 200, t);
      t = performance.now();
      const del = await stack.http.delete(`/api/cloud/dns/proxy-hosts/${res.body.id}`);
      const deleteMs = performance.now() - t;
      if (del.status !== 200) throw new Error(`delete ${domain}: ${del.status} ${del.text}`);
      const goneMs = await until(host, (s) => s === 404, t);
      if (i < WARMUP) continue;
      answered.push(answerMs);
      serving.push(servingMs);
      deleted.push(deleteMs);
      gone.push(goneMs);
    }
    // Its process goes with it: a later run of the slot would find its address taken.
    await api.delete(`/v1/instances/${instance.id}`);
    await waitFor('the instance to be deleted', async () => (await api.get(`/v1/instances/${instance.id}`)).status === 404, { timeoutMs: 60_000 });
    const result = { hosts: HOSTS, create_answered: summary(answered), create_to_serving: summary(serving), delete_answered: summary(deleted), delete_to_gone: summary(gone) };
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
