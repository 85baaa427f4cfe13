/**
 * clusters: for BENCH_RUNS (5) clusters of three demo-web members, one at a
 * time, against the compiled api, worker and edge of a test slot:
 *
 *   create_complete  POST /v1/clusters (min_size 3) to CREATE_COMPLETE, as
 *                    a client polling GET /v1/clusters/:id every 20 ms sees it;
 *   heal             one member's processes SIGKILLed to three members
 *                    running and passing their check again (the replacement
 *                    built and joined), seen the same way;
 *   from_instance    POST /v1/clusters/from-instance (min_size 3) on a
 *                    demo-web instance already serving, to CREATE_COMPLETE:
 *                    its URL moved, its snapshot made, two members built;
 *   raw_spawn        beside each, in the same run: the demo web app spawned
 *                    directly (node, no control plane) to its port accepting
 *                    a connection: the floor one member costs.
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 2), which it resets
 * first. Prints one JSON object; progress to stderr. See bench/README.md.
 */
// The slot is chosen before anything reads the test environment.
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '2';

import { canConnect } from '@stratus/providers';
import { allHealthy, createTenant, DEMO_CLUSTER, DEMO_INSTANCE, HttpClient, resetTestInstallation, TestStack, testDataSource, waitFor } from '@stratus/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { latencySummary as summary } from './percentiles';

const RUNS = Number(process.env.BENCH_RUNS || 5);
/** Where the raw spawn listens: outside every slot's address pool. */
const RAW_ADDRESS = '127.250.0.1';
const DEMO_WEB = join(__dirname, '..', '..', 'images', 'demo-web', 'server.js');

const log = (m: string) => process.stderr.write(`[bench:clusters] ${m}\n`);

/** Polls the cluster every 20 ms until `done` says so; returns the milliseconds since `from`. */
async function until(api: HttpClient, id: string, from: number, what: string, done: (c: any) => boolean): Promise<number> {
  await waitFor(
    what,
    async () => {
      const c = (await api.get(`/v1/clusters/${id}`)).body;
      if (c.status === 'CREATE_FAILED') throw new Error(`cluster ${id} failed: ${c.status_reason}`);
      return done(c);
    },
    { timeoutMs: 300_000, intervalMs: 20 },
  );
  return performance.now() - from;
}

/** The demo web app spawned as a member's would be, to its port accepting a connection. */
async function rawSpawn(port: number): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [DEMO_WEB], { env: { HOST: RAW_ADDRESS, PORT: String(port) }, stdio: 'ignore' });
  try {
    await waitFor('the raw demo web app to listen', () => canConnect(RAW_ADDRESS, port, 200), { timeoutMs: 60_000, intervalMs: 2 });
    return performance.now() - t;
  } finally {
    child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  log(`resetting test slot ${process.env.STRATUS_TEST_SLOT}`);
  await resetTestInstallation();
  const stack = await TestStack.start({}, ['api', 'worker', 'edge']);
  const db = await testDataSource();
  try {
    const tenant = await createTenant(db);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const create: number[] = [];
    const heal: number[] = [];
    const fromInstance: number[] = [];
    const raw: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      raw.push(await rawSpawn(18_080 + run));
      let t = performance.now();
      const res = await api.post('/v1/clusters', { name: `bench-${run}`, ...DEMO_CLUSTER, min_size: 3 });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      const id = res.body.id;
      create.push(await until(api, id, t, 'CREATE_COMPLETE', (c) => c.status === 'CREATE_COMPLETE'));

      const built = (await api.get(`/v1/clusters/${id}`)).body;
      const victim = built.members[run % 3];
      const pid = ((await (await fetch(`http://${victim.address}:${DEMO_CLUSTER.port}/`)).json()) as { pid: number }).pid;
      t = performance.now();
      process.kill(-pid, 'SIGKILL');
      heal.push(await until(api, id, t, 'three healthy members again', (c) => allHealthy(c) && !c.members.some((m: any) => m.instance_id === victim.instance_id)));
      log(`run ${run + 1}: create_complete ${Math.round(create[run])} ms, heal ${Math.round(heal[run])} ms, raw spawn ${Math.round(raw[run])} ms`);

      await api.delete(`/v1/clusters/${id}`);
      await waitFor('the cluster to be deleted', async () => (await api.get(`/v1/clusters/${id}`)).status === 404, { timeoutMs: 120_000 });

      // The instance made and serving first, not timed.
      const made = await api.post('/v1/instances', { name: `bench-source-${run}`, ...DEMO_INSTANCE, port: DEMO_CLUSTER.port });
      const source = await waitFor(
        'the source instance to serve',
        async () => {
          const i = (await api.get(`/v1/instances/${made.body.id}`)).body;
          return i.status === 'ACTIVE' && (await canConnect(i.metadata.privateIp, DEMO_CLUSTER.port, 200)) ? i : undefined;
        },
        { timeoutMs: 120_000 },
      );
      t = performance.now();
      const { flavor, backend_network_id, key_name } = DEMO_CLUSTER;
      const adopted = await api.post('/v1/clusters/from-instance', { name: `bench-adopted-${run}`, instance_id: source.id, flavor, backend_network_id, key_name, min_size: 3 });
      if (adopted.status !== 201) throw new Error(`from-instance: ${adopted.status} ${adopted.text}`);
      fromInstance.push(await until(api, adopted.body.id, t, 'CREATE_COMPLETE from the instance', (c) => c.status === 'CREATE_COMPLETE'));
      log(`run ${run + 1}: from_instance ${Math.round(fromInstance[run])} ms`);
      await api.delete(`/v1/clusters/${adopted.body.id}`);
      await waitFor('the cluster to be deleted', async () => (await api.get(`/v1/clusters/${adopted.body.id}`)).status === 404, { timeoutMs: 120_000 });
    }
    const result = { runs: RUNS, members: 3, create_complete: summary(create), heal: summary(heal), from_instance: summary(fromInstance), raw_spawn: summary(raw) };
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
