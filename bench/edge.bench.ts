/**
 * edge: throughput and p99 latency of the edge (data plane) against HAProxy
 * and nginx with equivalent configurations, all on the same target (one
 * demo-web instance), in one run:
 *
 *   tcp   direct instance | gateway route (edge) | HAProxy `mode tcp`
 *   http  direct instance | proxy host (edge, Host routing) | HAProxy `mode http` | nginx proxy_pass
 *
 * each with keep-alive and with a new connection per request
 * (`connection: close`). Prints one JSON object with rps, p99, each proxy's
 * CPU time per request and the ratios edge/HAProxy (and edge/nginx) of both;
 * progress goes to stderr. HAProxy and nginx
 * are installed with apt-get when missing (bench-only dependencies).
 *
 * Runs on its own test slot (BENCH_TEST_SLOT, default 7), which it resets.
 * The api and worker are stopped once the routes exist: the edge serves alone.
 */
process.env.STRATUS_TEST_SLOT = process.env.BENCH_TEST_SLOT || '7';

import {
  childPids,
  cpuTimeUs,
  createTenant,
  DEMO_INSTANCE,
  freePort,
  killInstancesUnder,
  resetTestInstallation,
  TestStack,
  testConfig,
  testDataSource,
  waitForInstance,
} from '@stratus/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig, haproxyTcpRoute } from './haproxy';
import { ensurePackages } from './packages';
import { round } from './percentiles';

interface Histogram {
  average: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  non2xx: number;
  errors: number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon: (opts: Record<string, unknown>) => Promise<AutocannonResult> & { stop(): void } = require('autocannon');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const DURATION_S = Number(process.env.BENCH_DURATION_S || 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S || 3);
// Threads/worker processes of every proxy under test: the edge's HAProxy
// threads (EDGE_THREADS), the baseline HAProxy's nbthread and nginx's
// worker_processes are all set to this, so the comparison is like for like.
const SLICES = Number(process.env.BENCH_SLICES || 10);
const PROXY_WORKERS = Number(process.env.BENCH_PROXY_WORKERS || 2);
const TARGETS = { tcp_keepalive: 0.9, http_keepalive: 0.8 };

const log = (m: string) => process.stderr.write(`[bench:edge] ${m}\n`);

type Mode = 'keepalive' | 'new_connection';
interface Measured {
  rps: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  /** rps of each slice, in order: slice i of every path of a group ran side by side in time. */
  slice_rps: number[];
  /** CPU time the proxy's processes used per request (user and system; not for direct). */
  cpu_us_per_request?: number;
}

async function load(url: string, mode: Mode, host: string | undefined, seconds: number): Promise<AutocannonResult> {
  const headers: Record<string, string> = {};
  if (host) headers.host = host;
  if (mode === 'new_connection') headers.connection = 'close';
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, timeout: 10 });
}

interface Path {
  name: string;
  url: string;
  host?: string;
  /** The proxy's processes, whose CPU time is counted. */
  pids?: number[];
}

/** CPU time `pids` have used so far, in µs. */
function cpuUs(pids: number[]): number {
  const { user, system } = cpuTimeUs(pids);
  return user + system;
}

/**
 * Measures the paths of one group in alternating slices (a, b, c, a, b, c,
 * ...), SLICES per path, DURATION_S in all per path: load from elsewhere on
 * a shared machine then falls on every path alike instead of on whichever
 * ran during it. rps = completed requests over the slices' time; p99 = the
 * highest slice p99.
 */
async function measureGroup(paths: Record<string, Path>, mode: Mode): Promise<Record<string, Measured>> {
  const keys = Object.keys(paths);
  for (const k of keys) await load(paths[k].url, mode, paths[k].host, WARMUP_S);
  const acc: Record<string, { requests: number; seconds: number; p99: number; errors: number; non_2xx: number; slices: number[]; cpuUs: number }> = {};
  for (const k of keys) acc[k] = { requests: 0, seconds: 0, p99: 0, errors: 0, non_2xx: 0, slices: [], cpuUs: 0 };
  const slice = DURATION_S / SLICES;
  for (let i = 0; i < SLICES; i++) {
    for (const k of i % 2 ? [...keys].reverse() : keys) {
      const a = acc[k];
      const cpuBefore = cpuUs(paths[k].pids ?? []);
      const r = await load(paths[k].url, mode, paths[k].host, slice);
      a.cpuUs += cpuUs(paths[k].pids ?? []) - cpuBefore;
      a.requests += r.requests.total;
      a.seconds += slice;
      a.slices.push(round(r.requests.total / slice, 0));
      a.p99 = Math.max(a.p99, r.latency.p99);
      a.errors += r.errors;
      a.non_2xx += r.non2xx;
    }
  }
  const out: Record<string, Measured> = {};
  for (const k of keys) {
    const a = acc[k];
    const m: Measured = { rps: round(a.requests / a.seconds, 0), p99_ms: round(a.p99), errors: a.errors, non_2xx: a.non_2xx, slice_rps: a.slices };
    if (paths[k].pids) m.cpu_us_per_request = round(a.cpuUs / a.requests, 1);
    log(
      `${paths[k].name} ${mode}: ${m.rps} rps, p99 ${m.p99_ms} ms${m.cpu_us_per_request ? `, ${m.cpu_us_per_request} µs CPU/request` : ''}${m.errors || m.non_2xx ? `, ${m.errors} errors, ${m.non_2xx} non-2xx` : ''}`,
    );
    out[k] = m;
  }
  return out;
}

function startDaemon(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('error', (err) => log(`${cmd}: ${err.message}`));
  return child;
}

async function waitPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`, { headers: { host: 'bench.localhost' } });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing listens on ${port}`);
}

async function main(): Promise<void> {
  const started = Date.now();
  ensurePackages({ haproxy: '/usr/sbin/haproxy', nginx: '/usr/sbin/nginx' }, log);
  log(`slot ${process.env.STRATUS_TEST_SLOT}: resetting the test installation`);
  await resetTestInstallation();
  const stack = await TestStack.start({ LOG_LEVEL: 'warn', EDGE_THREADS: String(PROXY_WORKERS) }, ['api', 'worker', 'edge']);
  const daemons: ChildProcess[] = [];
  const db = await testDataSource();
  try {
    const tenant = await createTenant(db);
    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const cloud = stack.http.with({ authorization: `Bearer ${tenant.token}` });
    const created = await api.post('/v1/instances', { name: 'bench', dname: 'bench', ...DEMO_INSTANCE });
    const instance = await waitForInstance(api, created.body.id);
    const ip: string = instance.metadata.privateIp;
    const routePort: number = (await cloud.get('/api/cloud/gateway/available-port')).body.port;
    const route = await cloud.post('/api/cloud/gateway/create', { targetIp: ip, targetPort: 3000, protocol: 'tcp', port: routePort });
    if (route.status !== 200) throw new Error(`route: ${route.status} ${route.text}`);
    const edgeHttp = Number(stack.env.EDGE_HTTP_PORT);
    const edgePid = stack.process('edge')!.pid!;
    // Its Node process and the two HAProxy processes it runs (gateway routes, proxy hosts).
    const edgeTree = [edgePid, ...childPids(edgePid)];
    // The edge serves alone from here on (and proves it can).
    await stack.stopService('api');
    await stack.stopService('worker');

    const [haTcp, haHttp, nginxHttp] = [await freePort(), await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'stratus-bench-'));
    writeFileSync(
      join(dir, 'haproxy.cfg'),
      haproxyConfig(PROXY_WORKERS, haproxyTcpRoute(haTcp, `${ip}:3000`)) +
        `frontend http_in
  mode http
  bind 127.0.0.1:${haHttp}
  acl bench hdr(host) -i bench.localhost
  use_backend http_out if bench
backend http_out
  mode http
  http-reuse always
  server s1 ${ip}:3000
`,
    );
    writeFileSync(
      join(dir, 'nginx.conf'),
      `worker_processes ${PROXY_WORKERS};
daemon off;
pid ${dir}/nginx.pid;
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream instance { server ${ip}:3000; keepalive 64; }
  server {
    listen 127.0.0.1:${nginxHttp};
    server_name bench.localhost;
    location / {
      proxy_pass http://instance;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
  }
}
`,
    );
    daemons.push(startDaemon('/usr/sbin/haproxy', ['-f', join(dir, 'haproxy.cfg'), '-db']));
    daemons.push(startDaemon('/usr/sbin/nginx', ['-c', join(dir, 'nginx.conf'), '-e', 'stderr']));
    await Promise.all([waitPort(haTcp), waitPort(haHttp), waitPort(nginxHttp)]);
    const [haproxyPid, nginxPid] = [daemons[0].pid!, daemons[1].pid!];
    const nginxTree = [nginxPid, ...childPids(nginxPid)];

    const result: Record<string, Record<Mode, Record<string, Measured>>> = { tcp: {} as never, http: {} as never };
    for (const mode of ['keepalive', 'new_connection'] as Mode[]) {
      result.tcp[mode] = await measureGroup(
        {
          direct: { name: 'tcp direct', url: `http://${ip}:3000/` },
          edge: { name: 'tcp edge route', url: `http://127.0.0.1:${routePort}/`, pids: edgeTree },
          haproxy: { name: 'tcp haproxy', url: `http://127.0.0.1:${haTcp}/`, pids: [haproxyPid] },
        },
        mode,
      );
      result.http[mode] = await measureGroup(
        {
          direct: { name: 'http direct', url: `http://${ip}:3000/`, host: 'bench.localhost' },
          edge: { name: 'http edge host', url: `http://127.0.0.1:${edgeHttp}/`, host: 'bench.localhost', pids: edgeTree },
          haproxy: { name: 'http haproxy', url: `http://127.0.0.1:${haHttp}/`, host: 'bench.localhost', pids: [haproxyPid] },
          nginx: { name: 'http nginx', url: `http://127.0.0.1:${nginxHttp}/`, host: 'bench.localhost', pids: nginxTree },
        },
        mode,
      );
    }
    const ratio = (a: Measured, b: Measured) => round(a.rps / b.rps);
    const ratios = {
      tcp_edge_vs_haproxy_keepalive: ratio(result.tcp.keepalive.edge, result.tcp.keepalive.haproxy),
      tcp_edge_vs_haproxy_new_connection: ratio(result.tcp.new_connection.edge, result.tcp.new_connection.haproxy),
      tcp_edge_vs_direct_keepalive: ratio(result.tcp.keepalive.edge, result.tcp.keepalive.direct),
      http_edge_vs_haproxy_keepalive: ratio(result.http.keepalive.edge, result.http.keepalive.haproxy),
      http_edge_vs_nginx_keepalive: ratio(result.http.keepalive.edge, result.http.keepalive.nginx),
      http_edge_vs_haproxy_new_connection: ratio(result.http.new_connection.edge, result.http.new_connection.haproxy),
      http_edge_vs_nginx_new_connection: ratio(result.http.new_connection.edge, result.http.new_connection.nginx),
      http_edge_vs_direct_keepalive: ratio(result.http.keepalive.edge, result.http.keepalive.direct),
    };
    // The same ratios slice by slice (each pair ran next to each other in time): their median
    // shrugs off a slice that load from elsewhere fell on, which the totals above do not.
    const paired = (a: Measured, b: Measured) => {
      const r = a.slice_rps.map((x, i) => x / b.slice_rps[i]).sort((x, y) => x - y);
      return { median: round((r[(r.length - 1) >> 1] + r[r.length >> 1]) / 2), min: round(r[0]), max: round(r[r.length - 1]) };
    };
    const paired_ratios = {
      tcp_edge_vs_haproxy_keepalive: paired(result.tcp.keepalive.edge, result.tcp.keepalive.haproxy),
      tcp_edge_vs_haproxy_new_connection: paired(result.tcp.new_connection.edge, result.tcp.new_connection.haproxy),
      http_edge_vs_haproxy_keepalive: paired(result.http.keepalive.edge, result.http.keepalive.haproxy),
      http_edge_vs_nginx_keepalive: paired(result.http.keepalive.edge, result.http.keepalive.nginx),
    };
    // CPU per request, edge over the other (above 1: the edge spends more). On a machine the
    // client and target share with the proxy, this is what throughput ratios come from.
    const cpu = (a: Measured, b: Measured) => round(a.cpu_us_per_request! / b.cpu_us_per_request!);
    const cpu_per_request_ratios = {
      tcp_edge_vs_haproxy_keepalive: cpu(result.tcp.keepalive.edge, result.tcp.keepalive.haproxy),
      tcp_edge_vs_haproxy_new_connection: cpu(result.tcp.new_connection.edge, result.tcp.new_connection.haproxy),
      http_edge_vs_haproxy_keepalive: cpu(result.http.keepalive.edge, result.http.keepalive.haproxy),
      http_edge_vs_nginx_keepalive: cpu(result.http.keepalive.edge, result.http.keepalive.nginx),
    };
    const out = {
      bench: 'edge',
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      slices: SLICES,
      edge_haproxy_threads: Number(stack.env.EDGE_THREADS),
      haproxy_threads: PROXY_WORKERS,
      nginx_workers: PROXY_WORKERS,
      results: result,
      ratios,
      paired_ratios,
      cpu_per_request_ratios,
      targets: {
        tcp_keepalive_vs_haproxy: { goal: TARGETS.tcp_keepalive, met: ratios.tcp_edge_vs_haproxy_keepalive >= TARGETS.tcp_keepalive },
        http_keepalive_vs_best_of_haproxy_nginx: {
          goal: TARGETS.http_keepalive,
          met: Math.max(ratios.http_edge_vs_haproxy_keepalive, ratios.http_edge_vs_nginx_keepalive) >= TARGETS.http_keepalive,
        },
      },
      elapsed_s: round((Date.now() - started) / 1000, 1),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } finally {
    for (const d of daemons) d.kill('SIGTERM');
    await stack.stop();
    await db.destroy();
    // The worker was stopped to show the edge serving alone, so no delete
    // can end the target instance: end it as a test teardown does.
    await killInstancesUnder(join(testConfig().DATA_DIR, 'instances'));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
