// The containers' healthchecks (docker-compose.yml): `node scripts/healthcheck.js api|worker|edge`
// exits 0 when that process does its work, 1 with the reason otherwise.
// Plain Node with runtime dependencies only: it runs inside the image, where
// dev dependencies are pruned, and must answer within the healthcheck's timeout.
const { readdirSync, readFileSync } = require('node:fs');
const { hostname } = require('node:os');
const { join } = require('node:path');

/** Each probe gives up after this long, well inside the compose file's `timeout`. */
const PROBE_MS = 3_000;

const env = process.env;
const fail = (why) => {
  console.error(`unhealthy: ${why}`);
  process.exit(1);
};
const ok = (what) => {
  console.log(`healthy: ${what}`);
  process.exit(0);
};
/** A wildcard listen address is reached on loopback; a specific one as it is. */
const reach = (host) => (!host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);

/** The api: /ready, which answers 200 only when PostgreSQL and Redis answer it. */
async function api() {
  const url = `http://${reach(env.API_HOST)}:${env.API_PORT || 8080}/ready`;
  const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_MS) });
  if (!res.ok) fail(`${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  ok(url);
}

/**
 * The worker serves no port: it is alive when it consumes the queues, which
 * Redis shows as BullMQ worker connections (client name
 * `<prefix>:<base64 queue name>`, `:w:<name>` when named) on every queue.
 * Any worker counts, so with several workers on one Redis this says the
 * queues are served, not that this container serves them.
 */
async function worker() {
  const Redis = require('ioredis');
  const { ALL_QUEUES } = require(join(__dirname, '..', 'dist', 'libs', 'queue', 'src', 'queue-names'));
  const prefix = env.QUEUE_PREFIX || 'stratus';
  const redis = new Redis(env.REDIS_URL || 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    connectTimeout: PROBE_MS,
    commandTimeout: PROBE_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const names = String(await redis.client('LIST'))
      .split('\n')
      .map((line) => / name=(\S*)/.exec(line)?.[1])
      .filter(Boolean);
    const unserved = ALL_QUEUES.filter((queue) => {
      const name = `${prefix}:${Buffer.from(queue).toString('base64')}`;
      return !names.some((n) => n === name || n.startsWith(`${name}:w:`));
    });
    if (unserved.length > 0) fail(`no worker consumes queue ${unserved.join(', ')}`);
    ok(`workers consume ${ALL_QUEUES.join(', ')}`);
  } finally {
    redis.disconnect();
  }
}

/**
 * The edge: its heartbeat row in edge_nodes, which it writes at every resync
 * (EDGE_RESYNC_INTERVAL_MS) with whether both HAProxy processes hold their
 * listeners. Its row is named `<hostname>:<pid>`; the pid is that of the
 * edge's Node process in this container (not pid 1 under an init).
 */
async function edge() {
  const pid = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .find((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8')
          .split('\0')
          .some((arg) => arg.endsWith('dist/apps/edge/src/main.js'));
      } catch {
        return false;
      }
    });
  if (!pid) fail('no edge process in this container');
  const name = `${hostname()}:${pid}`;
  // Three resyncs missed: stale. Not fewer, so a slow resync is not a failure.
  const staleSeconds = Math.max(15, (3 * Number(env.EDGE_RESYNC_INTERVAL_MS || 5000)) / 1000);
  const { Client } = require('pg');
  const db = new Client({
    connectionString: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/stratus',
    connectionTimeoutMillis: PROBE_MS,
    statement_timeout: PROBE_MS,
    application_name: 'stratus-healthcheck',
  });
  db.on('error', () => undefined);
  try {
    await db.connect();
    const { rows } = await db.query('SELECT http_bound, gateway_bound, extract(epoch FROM now() - heartbeat_at)::float AS age FROM edge_nodes WHERE name = $1', [name]);
    const row = rows[0];
    if (!row) fail(`no heartbeat from ${name} yet`);
    if (row.age > staleSeconds) fail(`last heartbeat from ${name} ${Math.round(row.age)} s ago`);
    const httpWanted = Number(env.EDGE_HTTP_PORT ?? 8081) !== 0;
    if (httpWanted && !row.http_bound) fail('the HTTP listener for proxy hosts is not bound');
    if (!row.gateway_bound) fail('the gateway HAProxy does not hold its ports');
    ok(`${name} heartbeat ${Math.round(row.age)} s ago, listeners bound`);
  } finally {
    await db.end().catch(() => undefined);
  }
}

const checks = { api, worker, edge };
const which = process.argv[2];
if (!checks[which]) fail(`usage: node scripts/healthcheck.js ${Object.keys(checks).join('|')}`);
checks[which]().catch((err) => fail(err instanceof Error ? err.message : String(err)));
