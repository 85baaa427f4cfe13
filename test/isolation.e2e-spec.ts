import { createManaged, DEMO_INSTANCE, HttpClient, useSuite, waitFor, waitForDatabase, waitForInstance } from '@stratus/testing';
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One shell probe: it counts as `ok` when the command exits 0 within 10 s.
 * Each line of the probe script is `probe <name> <command...>`.
 */
const PROBE_FUNCTION = `probe() {
  name=$1; shift
  if timeout 10 "$@" > "$HOME/probe-$name.log" 2>&1; then echo "$name ok" >> "$HOME/probe.txt"; else echo "$name refused" >> "$HOME/probe.txt"; fi
}`;

interface Probe {
  name: string;
  command: string;
}

/**
 * user_data of B's instance: writes a file of its own, waits for its own
 * volume (attached once the test has handed over A's passwords for the
 * control probes, in a file read and removed at once: no password stays at
 * rest), runs every probe as the instance's user and marks the end.
 */
function probeUserData(ownVolume: string, probes: Probe[]): string {
  return `#!/bin/sh
${PROBE_FUNCTION}
echo mine > "$HOME/own.txt"
(
  while [ ! -d "volumes/${ownVolume}" ]; do sleep 0.1; done
  . "$HOME/.stratus/a-passwords"; rm -f "$HOME/.stratus/a-passwords"
${probes.map((p) => `  probe ${p.name} ${p.command}`).join('\n')}
  touch "$HOME/probe.done"
) > /dev/null 2>&1 &
exit 0
`;
}

/** Reads the control folder's pid file (root reads what no instance can). */
function instancePid(dataDir: string, id: string): number {
  return Number(readFileSync(join(dataDir, 'instances', id, 'pid'), 'utf8').split(' ')[0]);
}

function serverPid(dataDir: string, key: string): number {
  return Number(readFileSync(join(dataDir, 'databases', key, 'pid'), 'utf8').split(' ')[0]);
}

describe("tenant isolation on the local provider: B's instance against A's servers, files and processes", () => {
  const s = useSuite();
  const SECRET = `a-secret-${process.pid}`;
  let results: Map<string, string>;
  let logs: (name: string) => string;
  let pgHba: string;

  beforeAll(async () => {
    const dataDir = s.stack.env.DATA_DIR;
    const a = { api: s.api, cloud: s.cloud };
    const b = {
      api: s.stack.http.with({ 'x-api-key': s.other.apiKey }),
      cloud: s.stack.http.with({ authorization: `Bearer ${s.other.token}` }),
    };

    // A: one server of each engine (MariaDB for the relational collection), an instance with a secret in its home, and a volume attached to it holding the same.
    const [pg, cache, ch, maria] = await Promise.all([
      createManaged(a.api, 'databases', { name: 'a-pg' }),
      createManaged(a.api, 'cache', { name: 'a-cache' }),
      createManaged(a.api, 'analytics', { name: 'a-events' }),
      createManaged(a.api, 'relational-databases', { name: 'a-maria', engine: 'mariadb' }),
    ]);
    const [aVolume, bVolume] = await Promise.all([volume(a.cloud, 'a-vol'), volume(b.cloud, 'b-vol')]);
    const aInstance = await a.api.post('/v1/instances', {
      name: 'a-vm',
      ...DEMO_INSTANCE,
      image_id: 'plain',
      user_data: `#!/bin/sh
echo ${SECRET} > "$HOME/secret.txt"
( while [ ! -d "volumes/${aVolume}" ]; do sleep 0.1; done; echo ${SECRET} > "volumes/${aVolume}/secret.txt" ) > /dev/null 2>&1 &
exit 0
`,
    });
    expect(aInstance.status).toBe(202);
    const [pgReady, cacheReady, chReady, mariaReady] = await Promise.all([
      waitForDatabase(a.api, 'databases', pg.body.id),
      waitForDatabase(a.api, 'cache', cache.body.id),
      waitForDatabase(a.api, 'analytics', ch.body.id),
      waitForDatabase(a.api, 'relational-databases', maria.body.id),
      waitForInstance(a.api, aInstance.body.id),
    ]);
    await attach(a.cloud, aVolume, aInstance.body.id);
    const aMount = join(dataDir, 'volumes', aVolume, 'mnt');
    await waitFor("A's secret on A's volume", () => existsSync(join(aMount, 'secret.txt')), { timeoutMs: 60_000, intervalMs: 100 });

    const aHome = join(dataDir, 'instances', aInstance.body.id, 'home');
    const pgKey = `postgres-${pg.body.id}`;
    const pgRun = join(dataDir, 'databases', pgKey, 'run');
    const redisSocket = join(dataDir, 'databases', `redis-${cache.body.id}`, 'run', 'redis.sock');
    pgHba = readFileSync(join(dataDir, 'databases', pgKey, 'data', 'pg_hba.conf'), 'utf8');
    const aPid = instancePid(dataDir, aInstance.body.id);
    const pgPid = serverPid(dataDir, pgKey);
    const pgUrl = (user: string, password: string) => `postgresql://${user}${password ? `:${password}` : ''}@${pgReady.floating_ip}:5432/${pgReady.db_name}`;
    const sql = `-X -w -tAc 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user'`;
    const chUrl = `http://${chReady.floating_ip}:8123/?query=SELECT%201`;
    const mariaKey = `mariadb-${maria.body.id}`;
    const mariaPid = serverPid(dataDir, mariaKey);
    const mariaSocket = join(dataDir, 'databases', mariaKey, 'run', 'mysqld.sock');
    const mariaCli = (how: string, user: string) => `mariadb --no-defaults ${how} --user=${user} --connect-timeout=10 -e "SELECT 1"`;
    const mariaTcp = `--host=${mariaReady.floating_ip} --port=3306`;

    const probes: Probe[] = [
      // What is B's own, and A's servers with A's passwords: all must work, so a probe that cannot run cannot pass.
      { name: 'own-home', command: `cat "$HOME/own.txt"` },
      { name: 'own-volume', command: `sh -c 'echo mine > "volumes/${bVolume}/mine.txt" && cat "volumes/${bVolume}/mine.txt"'` },
      { name: 'own-signal', command: `sh -c 'kill -0 $$'` },
      { name: 'pg-with-password', command: `psql "${pgUrl(pgReady.db_user, '$PG_PASSWORD')}" ${sql}` },
      { name: 'redis-with-password', command: `sh -c 'redis-cli -h ${cacheReady.floating_ip} --no-auth-warning -a "$REDIS_PASSWORD" PING | grep -qx PONG'` },
      { name: 'clickhouse-with-password', command: `sh -c 'curl -sf -u "appuser:$CH_PASSWORD" "${chUrl}" | grep -qx 1'` },
      { name: 'maria-with-password', command: `sh -c 'MYSQL_PWD="$MARIA_PASSWORD" ${mariaCli(mariaTcp, mariaReady.db_user)} ${mariaReady.db_name}'` },
      // A's servers without the password, over their sockets and addresses.
      { name: 'pg-socket-postgres', command: `psql -h ${pgRun} -U postgres ${sql} postgres` },
      { name: 'pg-socket-app', command: `psql -h ${pgRun} -U ${pgReady.db_user} ${sql} ${pgReady.db_name}` },
      { name: 'pg-tcp-postgres', command: `psql "${pgUrl('postgres', '')}" ${sql}` },
      { name: 'pg-tcp-app', command: `psql "${pgUrl(pgReady.db_user, '')}" ${sql}` },
      { name: 'redis-tcp', command: `sh -c 'redis-cli -h ${cacheReady.floating_ip} PING | grep -qx PONG'` },
      ...(existsSync(redisSocket) ? [{ name: 'redis-socket', command: `sh -c 'redis-cli -s ${redisSocket} PING | grep -qx PONG'` }] : []),
      { name: 'clickhouse-anonymous', command: `sh -c 'curl -sf "${chUrl}" | grep -qx 1'` },
      { name: 'clickhouse-default', command: `sh -c 'curl -sf -u default: "${chUrl}" | grep -qx 1'` },
      { name: 'clickhouse-app', command: `sh -c 'curl -sf -u appuser: "${chUrl}" | grep -qx 1'` },
      { name: 'maria-socket-root', command: mariaCli(`--socket=${mariaSocket}`, 'root') },
      { name: 'maria-socket-app', command: mariaCli(`--socket=${mariaSocket}`, mariaReady.db_user) },
      { name: 'maria-tcp-root', command: mariaCli(mariaTcp, 'root') },
      { name: 'maria-tcp-app', command: mariaCli(mariaTcp, mariaReady.db_user) },
      { name: 'maria-data', command: `ls ${join(dataDir, 'databases', mariaKey, 'data')}` },
      { name: 'maria-settings', command: `cat ${join(dataDir, 'databases', mariaKey, 'my.cnf')}` },
      { name: 'maria-signal', command: `kill -0 ${mariaPid}` },
      { name: 'pg-data', command: `ls ${join(dataDir, 'databases', pgKey, 'data')}` },
      { name: 'pg-log', command: `cat ${join(dataDir, 'databases', pgKey, 'server.log')}` },
      // A's instance: home, user_data, volume, console, processes.
      { name: 'a-home', command: `cat ${join(aHome, 'secret.txt')}` },
      { name: 'a-home-list', command: `ls ${aHome}` },
      { name: 'a-user-data', command: `cat ${join(aHome, '.stratus', 'user-data')}` },
      { name: 'a-volume', command: `cat ${join(aMount, 'secret.txt')}` },
      { name: 'a-volume-via-link', command: `cat ${join(aHome, 'volumes', aVolume, 'secret.txt')}` },
      { name: 'a-volume-write', command: `sh -c 'echo written-by-b > ${join(aMount, 'by-b.txt')}'` },
      { name: 'a-console', command: `cat ${join(dataDir, 'instances', aInstance.body.id, 'console.log')}` },
      { name: 'instances-list', command: `ls ${join(dataDir, 'instances')}` },
      { name: 'a-signal', command: `kill -0 ${aPid}` },
      { name: 'a-environ', command: `cat /proc/${aPid}/environ` },
      // Its memory map: readable only by who may trace it.
      { name: 'a-maps', command: `cat /proc/${aPid}/maps` },
      { name: 'pg-signal', command: `kill -0 ${pgPid}` },
      { name: 'pg-environ', command: `cat /proc/${pgPid}/environ` },
    ];

    // B: an instance of another project, whose user_data runs the probes once its own volume is there.
    const bInstance = await b.api.post('/v1/instances', { name: 'b-vm', ...DEMO_INSTANCE, image_id: 'plain', user_data: probeUserData(bVolume, probes) });
    expect(bInstance.status).toBe(202);
    await waitForInstance(b.api, bInstance.body.id);
    const bHome = join(dataDir, 'instances', bInstance.body.id, 'home');
    const handedOver = join(bHome, '.stratus', 'a-passwords');
    writeFileSync(
      handedOver,
      `PG_PASSWORD=${pg.body.db_password}\nREDIS_PASSWORD=${cache.body.password}\nCH_PASSWORD=${ch.body.db_password}\nMARIA_PASSWORD=${maria.body.db_password}\n` +
        'export PG_PASSWORD REDIS_PASSWORD CH_PASSWORD MARIA_PASSWORD\n',
      { mode: 0o600 },
    );
    chownSync(handedOver, statSync(bHome).uid, statSync(bHome).gid);
    await attach(b.cloud, bVolume, bInstance.body.id);
    await waitFor("B's probes to finish", () => existsSync(join(bHome, 'probe.done')), { timeoutMs: 180_000, intervalMs: 200 });
    results = new Map(
      readFileSync(join(bHome, 'probe.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    logs = (name) => readFileSync(join(bHome, `probe-${name}.log`), 'utf8');
    expect(existsSync(handedOver)).toBe(false);
    // Every probe ran.
    expect([...results.keys()].sort()).toEqual(probes.map((p) => p.name).sort());
  }, 300_000);

  it("B's instance reaches what is its own, and A's servers with A's passwords (the probes work)", () => {
    const controls = ['own-home', 'own-volume', 'own-signal', 'pg-with-password', 'redis-with-password', 'clickhouse-with-password', 'maria-with-password'];
    expect(Object.fromEntries(controls.map((name) => [name, results.get(name)]))).toEqual(Object.fromEntries(controls.map((name) => [name, 'ok'])));
    // PostgreSQL's app user is not a superuser, and the probe saw the server's answer.
    expect(logs('pg-with-password').trim()).toBe('f');
  });

  it("B's instance reaches none of A's servers without a password, over sockets or addresses", () => {
    const names = [...results.keys()].filter((n) => /^(pg|redis|clickhouse|maria)-/.test(n) && !n.endsWith('-with-password'));
    expect(names.length).toBeGreaterThanOrEqual(16);
    // Not only out of reach: no connection is trusted for where it comes from, the unix socket included.
    expect(pgHba.split('\n').filter((line) => /^\s*[^#\s]/.test(line) && /\btrust\b/.test(line))).toEqual([]);
    expect(Object.fromEntries(names.map((name) => [name, results.get(name)]))).toEqual(Object.fromEntries(names.map((name) => [name, 'refused'])));
  });

  it("B's instance cannot read A's home, user_data, console or volume, write to the volume, list the instances, or signal or read A's processes", () => {
    const names = [...results.keys()].filter((n) => n.startsWith('a-') || n === 'instances-list');
    expect(names).toHaveLength(11);
    expect(Object.fromEntries(names.map((name) => [name, results.get(name)]))).toEqual(Object.fromEntries(names.map((name) => [name, 'refused'])));
  });
});

async function volume(cloud: HttpClient, name: string): Promise<string> {
  const created = await cloud.post('/api/cloud/volumes/create', { name, size: 1 });
  expect(created.status).toBe(201);
  await waitFor(
    `volume ${name} available`,
    async () => {
      const v = ((await cloud.get('/api/cloud/volumes/list')).body as any[]).find((x) => x.id === created.body.id);
      return v?.status === 'available';
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return created.body.id;
}

async function attach(cloud: HttpClient, volumeId: string, instanceId: string): Promise<void> {
  const attached = await cloud.post('/api/cloud/volumes/attach', { volume_id: volumeId, instance_id: instanceId });
  expect(attached.status).toBe(200);
  await waitFor(
    `volume ${volumeId} in use`,
    async () => {
      const v = ((await cloud.get('/api/cloud/volumes/list')).body as any[]).find((x) => x.id === volumeId);
      return v?.status === 'in-use';
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}
