/**
 * gateway: CPU per relayed request of the edge's gateway HAProxy, one
 * process each, user space and kernel apart (/proc), for
 *
 *   range    the gateway as the edge runs it (GatewayRouter), holding a
 *            range of BENCH_RANGE_PORTS (1000) ports, one route on
 *   one      the same with a range of one port
 *   haproxy  the bench's plain HAProxy `mode tcp` (bench/haproxy.ts), the
 *            baseline of bench:edge
 *
 * all with BENCH_PROXY_WORKERS (2) threads, each carrying keep-alive HTTP
 * from autocannon to one demo-web server, in alternating slices. No control
 * plane: bench:edge measures the whole edge; this one says what holding the
 * range (2000 frontends, 1000 backends, 1000 certificates) costs per request.
 * Prints one JSON object; progress to stderr. See bench/README.md.
 */
import { cpuTimeUs, freePort, freePortRange, tcpConnectOutcome, waitFor } from '@stratus/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayRouter } from '../apps/edge/src/gateway-router';
import { haproxyConfig, haproxyTcpRoute } from './haproxy';
import { ensurePackages } from './packages';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon: (opts: Record<string, unknown>) => Promise<{ requests: { total: number }; errors: number }> = require('autocannon');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 8);
const SLICE_S = Number(process.env.BENCH_SLICE_S || 1.5);
const THREADS = Number(process.env.BENCH_PROXY_WORKERS || 2);
const RANGE_PORTS = Number(process.env.BENCH_RANGE_PORTS || 1000);

const log = (m: string) => process.stderr.write(`[bench:gateway] ${m}\n`);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

const listening = (port: number) =>
  waitFor(`a listener on ${port}`, async () => (await tcpConnectOutcome('127.0.0.1', port)) === 'connected', { timeoutMs: 5_000, intervalMs: 25 });

const load = (port: number, seconds: number) => autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: seconds });

async function main(): Promise<void> {
  ensurePackages({ haproxy: '/usr/sbin/haproxy' }, log);
  const dir = mkdtempSync(join(tmpdir(), 'stratus-bench-gateway-'));
  const children: ChildProcess[] = [];
  const routers: GatewayRouter[] = [];
  try {
    const target = await freePort();
    children.push(
      spawn(process.execPath, [join(__dirname, '../../images/demo-web/server.js')], {
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(target) },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
    await listening(target);

    const proxies: Record<string, { port: number; pid: number }> = {};
    for (const [name, size] of [
      ['range', RANGE_PORTS],
      ['one', 1],
    ] as const) {
      const range = await freePortRange(size);
      const router = new GatewayRouter({ dir: join(dir, name), host: '127.0.0.1', range, threads: THREADS, log: (level, msg) => level !== 'info' && log(`${name}: ${msg}`) });
      routers.push(router);
      const started = Date.now();
      const applied = await router.apply([{ id: name, port: range.from, targetIp: '127.0.0.1', targetPort: target, tls: null }]);
      if (applied[range.from] !== 'ok') throw new Error(`${name}: ${applied[range.from]}`);
      log(`${name}: ${size} ports held, route up in ${Date.now() - started} ms`);
      proxies[name] = { port: range.from, pid: Number(readFileSync(join(dir, name, 'gateway.pid'), 'utf8')) };
    }
    const port = await freePort();
    writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig(THREADS, haproxyTcpRoute(port, `127.0.0.1:${target}`)));
    const haproxy = spawn('/usr/sbin/haproxy', ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(haproxy);
    await listening(port);
    proxies.haproxy = { port, pid: haproxy.pid! };

    const names = Object.keys(proxies);
    for (const name of names) await load(proxies[name].port, 1); // warm-up
    const acc = Object.fromEntries(names.map((n) => [n, { requests: 0, errors: 0, user: 0, system: 0 }]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of i % 2 ? [...names].reverse() : names) {
        const before = cpuTimeUs([proxies[name].pid]);
        const r = await load(proxies[name].port, SLICE_S);
        const after = cpuTimeUs([proxies[name].pid]);
        const a = acc[name];
        a.requests += r.requests.total;
        a.errors += r.errors;
        a.user += after.user - before.user;
        a.system += after.system - before.system;
      }
    }
    const results = Object.fromEntries(
      names.map((n) => {
        const a = acc[n];
        const m = {
          rps: round(a.requests / (ROUNDS * SLICE_S), 0),
          user_us_per_request: round(a.user / a.requests),
          system_us_per_request: round(a.system / a.requests),
          cpu_us_per_request: round((a.user + a.system) / a.requests),
          errors: a.errors,
        };
        log(`${n}: ${m.rps} rps, ${m.user_us_per_request} µs user + ${m.system_us_per_request} µs system per request`);
        return [n, m];
      }),
    );
    const ratio = (a: string, b: string, key: 'cpu_us_per_request' | 'rps') => round(results[a][key] / results[b][key], 2);
    const out = {
      bench: 'gateway',
      connections: CONNECTIONS,
      rounds: ROUNDS,
      slice_s: SLICE_S,
      threads: THREADS,
      range_ports: RANGE_PORTS,
      results,
      cpu_per_request_ratios: { range_vs_haproxy: ratio('range', 'haproxy', 'cpu_us_per_request'), range_vs_one: ratio('range', 'one', 'cpu_us_per_request') },
      rps_ratios: { range_vs_haproxy: ratio('range', 'haproxy', 'rps'), range_vs_one: ratio('range', 'one', 'rps') },
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } finally {
    await Promise.all(routers.map((r) => r.close()));
    for (const c of children) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
