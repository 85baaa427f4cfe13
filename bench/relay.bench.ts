/**
 * relay: CPU per relayed request of one TCP relay process, user space and
 * kernel apart (/proc), for
 *
 *   edge     the edge's gateway-route relay (TcpRoutes, apps/edge)
 *   pipe     the same route on Node's `pipe()`, the relay before relay.ts
 *   haproxy  HAProxy `mode tcp`, nbthread 1 (installed with apt-get when missing)
 *
 * each carrying keep-alive HTTP from autocannon to one demo-web server, in
 * alternating slices. One process each, no control plane: bench:edge
 * measures the whole edge; this one says where a difference there comes
 * from. Prints one JSON object; progress to stderr. See bench/README.md.
 */
import { cpuTimeUs, freePort, tcpConnectOutcome, waitFor } from '@stratus/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig, haproxyTcpRoute } from './haproxy';
import { ensurePackages } from './packages';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon: (opts: Record<string, unknown>) => Promise<{ requests: { total: number }; errors: number }> = require('autocannon');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 6);
const SLICE_S = Number(process.env.BENCH_SLICE_S || 1.5);

const log = (m: string) => process.stderr.write(`[bench:relay] ${m}\n`);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** A child Node process running `script` with the route's listen and target ports as argv[1] and argv[2]. */
function node(script: string, port: number, target: number): ChildProcess {
  return spawn(process.execPath, ['-r', join(__dirname, '../../scripts/paths.js'), '-e', script, String(port), String(target)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const EDGE = `
const { TcpRoutes } = require(${JSON.stringify(join(__dirname, '../apps/edge/src/tcp-routes.js'))});
const [port, targetPort] = process.argv.slice(1).map(Number);
new TcpRoutes().apply('127.0.0.1', [{ port, targetIp: '127.0.0.1', targetPort, tls: null }]);
`;

const PIPE = `
const net = require('node:net');
const [port, targetPort] = process.argv.slice(1).map(Number);
net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ host: '127.0.0.1', port: targetPort, noDelay: true, allowHalfOpen: true });
  const done = () => { client.destroy(); upstream.destroy(); };
  for (const s of [client, upstream]) { s.on('error', done); s.on('close', done); }
  client.pipe(upstream);
  upstream.pipe(client);
}).listen(port, '127.0.0.1');
`;

function haproxy(dir: string, port: number, target: number): ChildProcess {
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(1, haproxyTcpRoute(port, `127.0.0.1:${target}`)));
  return spawn('/usr/sbin/haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const listening = (port: number) => waitFor(`a listener on ${port}`, async () => (await tcpConnectOutcome('127.0.0.1', port)) === 'connected', { timeoutMs: 5_000, intervalMs: 25 });

const load = (port: number, seconds: number) => autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: seconds });

async function main(): Promise<void> {
  ensurePackages({ haproxy: '/usr/sbin/haproxy' }, log);
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'stratus-bench-relay-'));
  try {
    const target = await freePort();
    const server = spawn(process.execPath, [join(__dirname, '../../images/demo-web/server.js')], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(target) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(server);
    await listening(target);
    const relays: Record<string, { port: number; child: ChildProcess }> = {};
    for (const [name, start] of [
      ['edge', (p: number) => node(EDGE, p, target)],
      ['pipe', (p: number) => node(PIPE, p, target)],
      ['haproxy', (p: number) => haproxy(dir, p, target)],
    ] as const) {
      const port = await freePort();
      const child = start(port);
      children.push(child);
      relays[name] = { port, child };
    }
    await Promise.all(Object.values(relays).map((r) => listening(r.port)));
    const names = Object.keys(relays);
    for (const name of names) await load(relays[name].port, 1); // warm-up (the JIT, the connections' first bytes)
    const acc = Object.fromEntries(names.map((n) => [n, { requests: 0, errors: 0, user: 0, system: 0 }]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of i % 2 ? [...names].reverse() : names) {
        const pid = relays[name].child.pid!;
        const before = cpuTimeUs([pid]);
        const r = await load(relays[name].port, SLICE_S);
        const after = cpuTimeUs([pid]);
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
        const m = { rps: round(a.requests / (ROUNDS * SLICE_S), 0), user_us_per_request: round(a.user / a.requests), system_us_per_request: round(a.system / a.requests), cpu_us_per_request: round((a.user + a.system) / a.requests), errors: a.errors };
        log(`${n}: ${m.rps} rps, ${m.user_us_per_request} µs user + ${m.system_us_per_request} µs system per request`);
        return [n, m];
      }),
    );
    const ratio = (a: string, b: string, key: 'cpu_us_per_request' | 'user_us_per_request' | 'system_us_per_request') => round(results[a][key] / results[b][key], 2);
    const out = {
      bench: 'relay',
      connections: CONNECTIONS,
      rounds: ROUNDS,
      slice_s: SLICE_S,
      results,
      cpu_per_request_ratios: {
        edge_vs_pipe: ratio('edge', 'pipe', 'cpu_us_per_request'),
        edge_vs_haproxy: ratio('edge', 'haproxy', 'cpu_us_per_request'),
        edge_vs_haproxy_user: ratio('edge', 'haproxy', 'user_us_per_request'),
        edge_vs_haproxy_system: ratio('edge', 'haproxy', 'system_us_per_request'),
      },
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } finally {
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
