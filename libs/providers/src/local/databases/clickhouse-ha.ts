import { randomToken } from '@stratus/core';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DatabaseServerSpec, haListenerId, keepHaListener, ObservedDatabaseMember } from '../../databases.driver';
import { DriverError } from '../../driver-error';
import { HealthCheckSpec, LoadBalancerDriver } from '../../load-balancer.driver';
import { chownTree } from '../file-ownership';
import { HostAccounts, RunAs } from '../host-accounts';
import { isAlive, processUid, readStat, scanMarkedLeaders, signalGroup } from '../process-table';
import { PackageNeed } from '../system-packages';
import { HA_STATE, ownedDir, partPid, partsTail, readHaState, spawnPart, writeHaState } from './ha-parts';
import { findExecutable } from './host-binaries';
import type { LocalObservedDatabaseServer } from './local-database.driver';

/** ZooKeeper's client port, on the database's own address (the balancer holds only the database port there). */
export const ZOOKEEPER_PORT = 2181;
/** Where members fetch parts from each other (interserver HTTP), on each member's address. */
export const INTERSERVER_PORT = 9009;
/**
 * Member n's native-protocol port is NATIVE_PORT_BASE + n. ClickHouse 18.16
 * runs an ON CLUSTER query on the hosts of the cluster definition that are
 * "local", judged by comparing with the host's interface addresses (never a
 * 127.x.y.z other than 127.0.0.1) and the server's own native port: so the
 * definition names the members as 127.0.0.1 and their native ports, which
 * tells each member which entry is itself.
 */
export const NATIVE_PORT_BASE = 9001;
/** The cluster the members form: `CREATE TABLE ... ON CLUSTER stratus` makes a table on all three. */
export const CLUSTER_NAME = 'stratus';
/**
 * The user the control plane watches the members as: read-only (every
 * database: system.replicas shows a user the tables of the databases it may
 * read only). Not a name a client can choose (those start with a letter).
 */
const MONITOR_USER = '_stratus_monitor';

/** The balancer's check: a member that answers `/ping` takes connections (every replica serves reads and writes). */
export const HA_CLICKHOUSE_CHECK: HealthCheckSpec = { kind: 'http', path: '/ping', intervalMs: 500, fall: 2, rise: 1 };

/** Where Debian's zookeeper package puts the server (run with the host's Java); slf4j-simple gives its log a destination. */
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const SLF4J_SIMPLE_JAR = '/usr/share/java/slf4j-simple.jar';
/** ZooKeeper's heap: its data here is table metadata and a replication log, a few MB; the JVM's default would take a quarter of the host's memory. */
const ZOOKEEPER_HEAP = '160m';

const MEMBERS = 3;
const STOP_GRACE_MS = 10_000;
const ZOOKEEPER = 'zookeeper';

/** What the control folder keeps of an ha analytics database (root's, 0600). */
export interface HaState {
  /** Of MONITOR_USER (the members hold its SHA-256 only). */
  monitorPassword: string;
  /**
   * What the members present to one another when they fetch parts
   * (interserver_http_credentials), and to ZooKeeper (a digest identity: the
   * nodes they make are theirs alone). In each member's config.xml too, the
   * database user's, 0600: ClickHouse sends them as they are.
   */
  interserverPassword: string;
  zookeeperPassword: string;
  startedAt: number;
  /** Every member ran, the cluster answered, and the address served, once: ready from then on while a member serves. */
  servedOnce?: boolean;
  /** A new users.xml (a reset password) that not every running member has read yet. */
  usersPending?: boolean;
}

export interface ClickHouseHaOptions {
  dir: string;
  accounts: HostAccounts;
  startTimeoutMs: number;
  marker: string;
  balancer: LoadBalancerDriver | null;
  runAs(): Promise<RunAs>;
  exited(databaseKey: string): void;
}

/**
 * What the servers of an ha analytics database open to one another, for the
 * packet filter: ZooKeeper on the database's address and each member's
 * interserver port (parts fetched from one another). Both private: nothing
 * but the control plane and the servers reaches them, whatever the groups say.
 */
export function clickhouseHaPeers(database: { address: string; memberAddresses: string[] }): Array<{ address: string; port: number; private: boolean }> {
  return [{ address: database.address, port: ZOOKEEPER_PORT, private: true }, ...database.memberAddresses.map((address) => ({ address, port: INTERSERVER_PORT, private: true }))];
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * High-availability analytics on the local provider: per database one
 * ZooKeeper (on the database's address) and three ClickHouse servers on the
 * member addresses, one shard of three replicas: a ReplicatedMergeTree
 * table is copied to every member through ZooKeeper, and a table made
 * `ON CLUSTER stratus` exists on all three. A balancer listener on the
 * database's address sends connections to the members that answer `/ping`.
 * Every process runs as the installation's database user, is marked
 * (`<key>.zookeeper`, `<key>.member-<n>`) and is started again by the
 * reconciler when it dies; a member whose data folder is gone is laid out
 * again with its peers' table definitions and fetches their data.
 * Files: `<dir>/<key>/` root's (ha.json, logs, pid files), `zookeeper/` and
 * `member-<n>/` the database user's (0700).
 */
export class ClickHouseHa {
  constructor(private readonly opts: ClickHouseHaOptions) {}

  /** This key is an ha analytics database laid out here. */
  holds(key: string): boolean {
    return key.startsWith('clickhouse-') && existsSync(join(this.opts.dir, key, HA_STATE));
  }

  /** What the host lacks for ha analytics, or null: ClickHouse, and ZooKeeper with a Java runtime. */
  missing(_spec?: DatabaseServerSpec): string | null {
    const lacks = [
      findExecutable('clickhouse-server') ? null : 'ClickHouse (clickhouse-server)',
      this.zookeeperReady() ? null : 'ZooKeeper with a Java runtime (zookeeper)',
    ].filter((s): s is string => s !== null);
    return lacks.length ? `${lacks.join(' and ')} ${lacks.length > 1 ? 'are' : 'is'} not installed on this host` : null;
  }

  packagesFor(): PackageNeed | null {
    const packages = [findExecutable('clickhouse-server') ? null : 'clickhouse-server', this.zookeeperReady() ? null : 'zookeeper'].filter((p): p is string => p !== null);
    return packages.length ? { packages, why: 'the first high-availability analytics database on this host' } : null;
  }

  private zookeeperReady(): boolean {
    return existsSync(ZOOKEEPER_JAR) && findExecutable('java') !== null;
  }

  async observe(key: string): Promise<LocalObservedDatabaseServer | null> {
    const state = this.state(key);
    if (!state) return existsSync(join(this.opts.dir, key)) ? { running: false, ready: false, pid: null } : null;
    const zookeeper = partPid(this.opts, key, ZOOKEEPER);
    const view = await this.view(key, state);
    const running = zookeeper !== null || view.members.some((m, n) => partPid(this.opts, key, `member-${n}`) !== null);
    return { running, ready: !!state.servedOnce && view.members.some((m) => m.health === 'up'), pid: zookeeper, members: view.members, degraded: view.degraded };
  }

  /**
   * Lays out what is missing, starts ZooKeeper and then every member that
   * does not run (one whose data folder is gone is laid out again and
   * fetches its data from the others), keeps the balancer listener, and
   * says ready once all three members answer, each sees the cluster of
   * three, and the address answers.
   */
  async ensureRunning(spec: DatabaseServerSpec): Promise<LocalObservedDatabaseServer> {
    if (spec.engine !== 'clickhouse') throw new DriverError('invalid', `high availability (ha: true) of ${spec.engine} is not run by this provider`);
    if (spec.memberAddresses.length !== MEMBERS) throw new DriverError('invalid', `high availability needs ${MEMBERS} member addresses, got ${spec.memberAddresses.length}`);
    if (!this.opts.balancer) throw new DriverError('invalid', 'high availability (ha: true) needs the load balancer, which this worker does not have');
    const runAs = await this.opts.runAs();
    let state = this.state(spec.key);
    try {
      if (!state) state = this.layOut(spec, runAs);
      await keepHaListener(this.opts.balancer, spec, HA_CLICKHOUSE_CHECK);
      if (partPid(this.opts, spec.key, ZOOKEEPER) === null) {
        this.stopStrays(`${spec.key}.${ZOOKEEPER}`);
        spawnPart(this.opts, spec.key, ZOOKEEPER, this.zookeeperCommand(spec.key), runAs);
      }
      // Members start once ZooKeeper serves: a member that cannot reach it at start gives up on ON CLUSTER queries.
      if (await zookeeperAnswers(spec.address)) {
        for (let n = 0; n < MEMBERS; n++) {
          const pid = partPid(this.opts, spec.key, `member-${n}`);
          // A member whose data folder was removed under it serves nothing it can keep: stopped, and laid out again below.
          if (pid !== null && !this.hasData(spec.key, n)) await stopGroup(pid);
          else if (pid !== null) continue;
          this.stopStrays(`${spec.key}.member-${n}`);
          this.prepareMember(spec, n, state, runAs);
          spawnPart(
            this.opts,
            spec.key,
            `member-${n}`,
            { bin: findExecutable('clickhouse-server')!, args: [`--config-file=${join(this.memberDir(spec.key, n), 'config.xml')}`] },
            runAs,
          );
        }
      }
      // A reset password reaches every member's users.xml, which ClickHouse reads again on its own within
      // seconds. The monitor's password changes with it: a member that takes the new one has read the file.
      const layouts = [0, 1, 2].filter((n) => existsSync(join(this.memberDir(spec.key, n), 'users.xml')));
      if (layouts.some((n) => !this.holdsVerifier(spec, n))) {
        state.monitorPassword = randomToken(32);
        state.usersPending = true;
        this.writeState(spec.key, state);
        for (const n of layouts) this.writeUsers(spec, n, state, runAs);
      }
      const view = await this.view(spec.key, state);
      const base = { running: true, pid: partPid(this.opts, spec.key, ZOOKEEPER), members: view.members, degraded: view.degraded };
      if (state.usersPending) {
        const taken = await Promise.all(
          view.members.map(async (m) => m.health === 'down' || (await query(m.address, spec.port, MONITOR_USER, state!.monitorPassword, 'SELECT 1'))?.trim() === '1'),
        );
        if (!taken.every(Boolean)) return { ...base, ready: false };
        state.usersPending = false;
        this.writeState(spec.key, state);
      }
      if (!state.servedOnce) {
        const whole = !view.degraded && (await this.clusterComplete(spec, state)) && (await this.answers(spec, state));
        if (!whole) {
          this.timedOut(spec, state);
          return { ...base, ready: false };
        }
        state.servedOnce = true;
        this.writeState(spec.key, state);
      }
      return { ...base, ready: view.members.some((m) => m.health === 'up') };
    } catch (err) {
      // Never came up: nothing is left of it.
      if (err instanceof DriverError && err.terminal && !state?.servedOnce) await this.delete(spec.key);
      throw err;
    }
  }

  /** Stops every member and ZooKeeper, removes the listener and every folder. */
  async delete(key: string): Promise<void> {
    await this.opts.balancer?.deleteListener(haListenerId(key));
    for (const name of [...Array.from({ length: MEMBERS }, (_, n) => `member-${n}`), ZOOKEEPER]) {
      const pid = partPid(this.opts, key, name);
      if (pid !== null) signalGroup(pid, 'SIGTERM');
    }
    const deadline = Date.now() + STOP_GRACE_MS;
    while (this.leadersOf(key).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const leader of this.leadersOf(key)) signalGroup(leader.pid, 'SIGKILL');
    rmSync(join(this.opts.dir, key), { recursive: true, force: true });
  }

  /** Every member's health and lag, as its process, `/ping` and system.replicas say; degraded when a member or ZooKeeper is down. */
  private async view(key: string, state: HaState): Promise<{ members: ObservedDatabaseMember[]; degraded: boolean }> {
    const addresses = this.memberAddresses(key);
    const port = this.port(key);
    const members = await Promise.all(
      addresses.map(async (address, n): Promise<ObservedDatabaseMember> => {
        const up = partPid(this.opts, key, `member-${n}`) !== null && this.hasData(key, n) && (await ping(address, port));
        // absolute_delay: seconds behind the freshest replica; only where a replicated table exists, and while the queue is known (a replica just started says nonsense).
        const delay = up ? await query(address, port, MONITOR_USER, state.monitorPassword, 'SELECT max(absolute_delay), count() FROM system.replicas WHERE NOT is_readonly') : null;
        const [value, tables] = (delay ?? '').trim().split('\t').map(Number);
        const lag = up && tables > 0 && Number.isFinite(value) && value < 365 * 86_400 ? { value, unit: 'seconds' as const } : null;
        return { address, role: 'replica', health: up ? 'up' : 'down', lag };
      }),
    );
    const zookeeper = partPid(this.opts, key, ZOOKEEPER) !== null && (await zookeeperAnswers(this.address(key)));
    return { members, degraded: !zookeeper || members.some((m) => m.health === 'down') };
  }

  /** Every member sees the cluster of three in its settings. */
  private async clusterComplete(spec: DatabaseServerSpec, state: HaState): Promise<boolean> {
    const counts = await Promise.all(
      spec.memberAddresses.map((address) =>
        query(address, spec.port, MONITOR_USER, state.monitorPassword, `SELECT count() FROM system.clusters WHERE cluster = '${CLUSTER_NAME}'`),
      ),
    );
    return counts.every((c) => c?.trim() === String(MEMBERS));
  }

  /** The database's address leads to a member (the balancer found them) that takes a login. */
  private async answers(spec: DatabaseServerSpec, state: HaState): Promise<boolean> {
    return (await query(spec.address, spec.port, MONITOR_USER, state.monitorPassword, 'SELECT 1'))?.trim() === '1';
  }

  private timedOut(spec: DatabaseServerSpec, state: HaState): void {
    // ZooKeeper is a JVM: it is given twice a server's start time.
    if (Date.now() - state.startedAt > this.opts.startTimeoutMs * 2) {
      throw new DriverError('invalid', `the high-availability members did not all come up within ${this.opts.startTimeoutMs * 2} ms; last output: ${this.tail(spec.key)}`);
    }
  }

  /** The control folder, ZooKeeper's folder and settings, the members' folders; ha.json last, so a half-made layout is made again. */
  private layOut(spec: DatabaseServerSpec, runAs: RunAs): HaState {
    const dir = join(this.opts.dir, spec.key);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o710 });
    if (runAs.name) chownSync(dir, process.getuid!(), runAs.gid);
    chmodSync(dir, 0o710);
    const state: HaState = { monitorPassword: randomToken(32), interserverPassword: randomToken(32), zookeeperPassword: randomToken(32), startedAt: Date.now() };
    const zk = join(dir, ZOOKEEPER);
    ownedDir(join(zk, 'data'), runAs);
    writeFileSync(
      join(zk, 'zoo.cfg'),
      `# Written by the local provider: the coordination of ${spec.key}'s replicas.
tickTime=500
initLimit=10
syncLimit=5
dataDir=${join(zk, 'data')}
clientPort=${ZOOKEEPER_PORT}
clientPortAddress=${spec.address}
maxClientCnxns=64
admin.enableServer=false
4lw.commands.whitelist=srvr
autopurge.snapRetainCount=3
autopurge.purgeInterval=1
`,
      { mode: 0o600 },
    );
    chownTree(zk, runAs);
    writeFileSync(join(dir, 'members'), `${spec.address}\n${spec.port}\n${spec.memberAddresses.join('\n')}\n`, { mode: 0o600 });
    for (let n = 0; n < MEMBERS; n++) this.layOutMember(spec, n, state, runAs);
    this.writeState(spec.key, state);
    return state;
  }

  /**
   * A member that is not running, before it starts: one whose data folder
   * is gone is laid out again, with the table definitions of a member whose
   * data is there and ClickHouse's `force_restore_data` flag, so its
   * replicated tables fetch every part from the others.
   */
  private prepareMember(spec: DatabaseServerSpec, n: number, state: HaState, runAs: RunAs): void {
    const data = join(this.memberDir(spec.key, n), 'data');
    if (this.hasData(spec.key, n)) return;
    this.layOutMember(spec, n, state, runAs);
    const peer = [0, 1, 2].find((p) => p !== n && this.hasData(spec.key, p));
    if (peer === undefined) return;
    const from = join(this.memberDir(spec.key, peer), 'data', 'metadata');
    for (const entry of readdirSync(from)) {
      if (entry === 'system' || entry === 'system.sql') continue;
      cpSync(join(from, entry), join(data, 'metadata', entry), { recursive: true });
      if (statSync(join(from, entry)).isDirectory()) mkdirSync(join(data, 'data', entry), { recursive: true, mode: 0o700 });
    }
    mkdirSync(join(data, 'flags'), { recursive: true, mode: 0o700 });
    writeFileSync(join(data, 'flags', 'force_restore_data'), '');
    chownTree(data, runAs);
  }

  /** A member's folder: its settings beside a fresh data folder with the database in it. */
  private layOutMember(spec: DatabaseServerSpec, n: number, state: HaState, runAs: RunAs): void {
    const dir = this.memberDir(spec.key, n);
    const data = join(dir, 'data');
    rmSync(data, { recursive: true, force: true });
    ownedDir(dir, runAs);
    for (const d of [data, join(data, 'tmp'), join(data, 'user_files'), join(data, 'format_schemas'), join(data, 'metadata', spec.dbName!), join(data, 'data', spec.dbName!)]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
    }
    writeFileSync(join(dir, 'config.xml'), memberConfig(spec, n, data, join(dir, 'users.xml'), state), { mode: 0o600 });
    chownTree(dir, runAs);
    this.writeUsers(spec, n, state, runAs);
  }

  /** The member's data folder is there (its table definitions with it). */
  private hasData(key: string, n: number): boolean {
    return existsSync(join(this.memberDir(key, n), 'data', 'metadata'));
  }

  private holdsVerifier(spec: DatabaseServerSpec, n: number): boolean {
    try {
      return readFileSync(join(this.memberDir(spec.key, n), 'users.xml'), 'utf8').includes(`<password_sha256_hex>${spec.passwordVerifier}</password_sha256_hex>`);
    } catch {
      return false;
    }
  }

  /** users.xml: the app user with its verifier, and the control plane's read-only monitor with the SHA-256 of its password. */
  private writeUsers(spec: DatabaseServerSpec, n: number, state: HaState, runAs: RunAs): void {
    const file = join(this.memberDir(spec.key, n), 'users.xml');
    const monitor = createHash('sha256').update(state.monitorPassword).digest('hex');
    writeFileSync(
      file,
      `<?xml version="1.0"?>
<!-- Written by the local provider: the app user, and the control plane's read-only monitor. -->
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage></default>
    <monitor><readonly>1</readonly></monitor>
  </profiles>
  <users>
    <${xml(spec.dbUser!)}>
      <password_sha256_hex>${spec.passwordVerifier}</password_sha256_hex>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </${xml(spec.dbUser!)}>
    <${MONITOR_USER}>
      <password_sha256_hex>${monitor}</password_sha256_hex>
      <networks><ip>::/0</ip></networks>
      <profile>monitor</profile>
      <quota>default</quota>
    </${MONITOR_USER}>
  </users>
  <quotas><default></default></quotas>
</yandex>
`,
      { mode: 0o600 },
    );
    chownTree(file, runAs);
  }

  /** ZooKeeper standalone, with a small heap and no JVM files outside its folder. */
  private zookeeperCommand(key: string): { bin: string; args: string[] } {
    const zk = join(this.opts.dir, key, ZOOKEEPER);
    const classpath = [ZOOKEEPER_JAR, ...(existsSync(SLF4J_SIMPLE_JAR) ? [SLF4J_SIMPLE_JAR] : [])].join(':');
    return {
      bin: findExecutable('java')!,
      args: [
        `-Xmx${ZOOKEEPER_HEAP}`,
        '-Xms16m',
        '-Xss512k',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        // No /tmp/hsperfdata_<user>: nothing of it outside its folder.
        '-XX:-UsePerfData',
        `-Djava.io.tmpdir=${zk}`,
        '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
        '-cp',
        classpath,
        'org.apache.zookeeper.server.ZooKeeperServerMain',
        join(zk, 'zoo.cfg'),
      ],
    };
  }

  /** Everything of this database still running: process-group leaders carrying its marker, as the database user. */
  private leadersOf(key: string): Array<{ pid: number }> {
    const found: Array<{ pid: number }> = [];
    for (const [id, leaders] of scanMarkedLeaders(this.opts.marker, this.opts.accounts.installation)) {
      if (id.startsWith(`${key}.`)) found.push(...leaders.filter((l) => this.ours(l.pid)));
    }
    return found;
  }

  /** A part's processes no pid file names (a worker that died between spawn and pid file): stopped before a new one starts. */
  private stopStrays(partKey: string): void {
    for (const leader of scanMarkedLeaders(this.opts.marker, this.opts.accounts.installation).get(partKey) ?? []) {
      if (this.ours(leader.pid)) signalGroup(leader.pid, 'SIGKILL');
    }
  }

  /** Anyone can put the marker in an environment: only the database user's processes (or our own) are servers. */
  private ours(pid: number): boolean {
    return [process.getuid?.(), this.opts.accounts.databaseUserNow()?.uid].includes(processUid(pid) ?? -1);
  }

  /** `members`: the database's address, its port, then the members' addresses. */
  private layout(key: string): string[] {
    try {
      return readFileSync(join(this.opts.dir, key, 'members'), 'utf8')
        .trim()
        .split('\n');
    } catch {
      return [];
    }
  }

  private address(key: string): string {
    return this.layout(key)[0] ?? '';
  }

  private port(key: string): number {
    return Number(this.layout(key)[1] ?? 0);
  }

  private memberAddresses(key: string): string[] {
    return this.layout(key).slice(2);
  }

  private memberDir(key: string, n: number): string {
    return join(this.opts.dir, key, `member-${n}`);
  }

  private state(key: string): HaState | null {
    if (!key.startsWith('clickhouse-')) return null;
    return readHaState<HaState>(this.opts, key);
  }

  private writeState(key: string, state: HaState): void {
    writeHaState(this.opts, key, state);
  }

  private tail(key: string, chars = 300): string {
    return partsTail(this.opts, key, chars);
  }
}

/**
 * Member n's settings: its address and ports, the cluster of three, the
 * coordination by the database's ZooKeeper, and the macros a replicated
 * table's path and replica name take (`{shard}`, `{replica}`).
 */
export function memberConfig(spec: DatabaseServerSpec, n: number, data: string, usersFile: string, secrets: Pick<HaState, 'interserverPassword' | 'zookeeperPassword'>): string {
  const address = spec.memberAddresses[n];
  const replicas = spec.memberAddresses.map((_, i) => `        <replica><host>127.0.0.1</host><port>${NATIVE_PORT_BASE + i}</port></replica>`).join('\n');
  return `<?xml version="1.0"?>
<!-- Written by the local provider: member ${n} of ${spec.key}. -->
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>${address}</listen_host>
  <http_port>${spec.port}</http_port>
  <tcp_port>${NATIVE_PORT_BASE + n}</tcp_port>
  <interserver_http_host>${address}</interserver_http_host>
  <interserver_http_port>${INTERSERVER_PORT}</interserver_http_port>
  <interserver_http_credentials><user>replica</user><password>${secrets.interserverPassword}</password></interserver_http_credentials>
  <path>${data}/</path>
  <tmp_path>${data}/tmp/</tmp_path>
  <user_files_path>${data}/user_files/</user_files_path>
  <format_schema_path>${data}/format_schemas/</format_schema_path>
  <users_config>${usersFile}</users_config>
  <default_profile>default</default_profile>
  <default_database>${xml(spec.dbName!)}</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <max_connections>1024</max_connections>
  <remote_servers>
    <${CLUSTER_NAME}>
      <shard>
        <internal_replication>true</internal_replication>
${replicas}
      </shard>
    </${CLUSTER_NAME}>
  </remote_servers>
  <zookeeper>
    <node><host>${spec.address}</host><port>${ZOOKEEPER_PORT}</port></node>
    <session_timeout_ms>4000</session_timeout_ms>
    <identity>replica:${secrets.zookeeperPassword}</identity>
  </zookeeper>
  <macros><cluster>${CLUSTER_NAME}</cluster><shard>1</shard><replica>member-${n}</replica></macros>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
</yandex>
`;
}

/**
 * ZooKeeper serves: `srvr` names its mode. Not `ruok`, whose `imok` comes
 * before the server takes sessions; a member started then finds no
 * ZooKeeper, and ClickHouse 18.16 gives up on ON CLUSTER queries for good
 * (one sent to it then crashes it).
 */
function zookeeperAnswers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    let said = '';
    const socket = connect({ host: address, port: ZOOKEEPER_PORT, timeout: 1_000 }, () => socket.end('srvr'));
    socket.on('data', (d) => (said += d.toString()));
    socket.on('end', () => resolve(/^Mode: standalone$/m.test(said)));
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** `/ping` answers `Ok.` without credentials once the server serves. */
function ping(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: address, port, path: '/ping', timeout: 1_000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** A query over HTTP as `user`; its text, or null when it failed. */
function query(address: string, port: number, user: string, password: string, sql: string): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: address,
        port,
        method: 'POST',
        path: '/',
        timeout: 2_000,
        agent: false,
        headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d.toString()));
        res.on('end', () => resolve(res.statusCode === 200 ? body : null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end(sql);
  });
}

/** SIGKILL to the group, and back once it is gone (a few seconds at most). */
async function stopGroup(pid: number): Promise<void> {
  signalGroup(pid, 'SIGKILL');
  const deadline = Date.now() + 5_000;
  while (isAlive(readStat(pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}
