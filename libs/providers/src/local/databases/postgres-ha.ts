import { PRELOADED_EXTENSIONS, randomToken, sqlExtensionName } from '@stratus/core';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  DatabaseServerSpec,
  ETCD_CLIENT_PORT,
  ETCD_PEER_PORT,
  HA_POSTGRES_CHECK,
  haListenerId,
  keepHaListener,
  ObservedDatabaseMember,
  PATRONI_REST_PORT,
} from '../../databases.driver';
import { PATRONI_BASEBACKUP, patroniAuthentication, patroniDcs, patroniMemberRuns, patroniRestApi, patroniView } from '../../patroni';
import { DriverError } from '../../driver-error';
import { LoadBalancerDriver } from '../../load-balancer.driver';
import { HostAccounts, RunAs } from '../host-accounts';
import { HaPeers } from '../local-hooks';
import { ServerPeer } from '../packet-filter';
import { isAlive, killTree, processUid, readStat, scanMarkedLeaders, signalGroup } from '../process-table';
import { PackageNeed } from '../system-packages';
import { HA_STATE, ownedDir, partPid, partsTail, readHaState, spawnPart, writeHaState } from './ha-parts';
import { findExecutable } from './host-binaries';
import type { LocalObservedDatabaseServer } from './local-database.driver';
import { choosePostgresDistribution, findPostgresDistributions, PostgresDistribution } from './postgres-distributions';
import { PostgresEngine } from './postgres.engine';

/**
 * Failover timing (docs/decisions.md, "PostgreSQL high availability"):
 * the leader's lease lives TTL_S; replicas look every LOOP_WAIT_S (and at
 * once when etcd tells them the key went); Patroni requires
 * loop_wait + 2 * retry_timeout <= ttl.
 */
export const PATRONI_TIMING = { ttl: 5, loop_wait: 1, retry_timeout: 2 } as const;

/**
 * A member that died is started again at once when another member holds
 * the lead; one that held it is started only once its lease has surely
 * run out, so that a replica takes over (and no client waits for a crashed
 * primary to come back): it then rejoins as a replica.
 */
const RESTART_LEADER_AFTER_MS = (PATRONI_TIMING.ttl + 3) * 1_000;
/**
 * While its synchronous standby runs, the one member that may take over
 * in synchronous mode, a dead leader waits this long for it to: on a busy
 * host a promotion can outlast the lease by seconds, and a leader started
 * meanwhile may win the lead back (it is eligible too). Past this the
 * standby is taken to be stuck, and the leader comes back.
 */
const RESTART_LEADER_WITH_STANDBY_MS = 60_000;

const MEMBERS = 3;
const STOP_GRACE_MS = 10_000;

/** What the control folder keeps of an ha database (root's, 0600): its build and the secrets its members share. */
interface HaState {
  distribution: PostgresDistribution;
  /** Of `postgres`, with which Patroni and the control plane administer the members. */
  superPassword: string;
  /** Of `replicator`, with which replicas stream and clone. */
  replicationPassword: string;
  /** Of Patroni's REST API, for what changes the cluster (reads need none). */
  restPassword: string;
  /** The spec was applied through the primary, and the address answered, once: ready from then on while a primary serves. */
  servedOnce?: boolean;
}

interface Part {
  /** `etcd` or `member-<n>`. */
  name: string;
  /** Process marker key: `<database key>.<name>`. */
  key: string;
}

const ETCD: Omit<Part, 'key'> = { name: 'etcd' };

export interface PostgresHaOptions {
  dir: string;
  accounts: HostAccounts;
  templatesDir: string;
  startTimeoutMs: number;
  marker: string;
  balancer: LoadBalancerDriver | null;
  runAs(): Promise<RunAs>;
  exited(databaseKey: string): void;
}

/**
 * What the servers of an ha PostgreSQL database open to one another: each
 * member's PostgreSQL (replication, clones, pg_rewind) and Patroni REST API,
 * and etcd on the database's address. The REST API and etcd are private:
 * no instance reaches them, whatever its groups allow.
 */
export function postgresHaPeers(database: HaPeers): ServerPeer[] {
  return [
    ...database.memberAddresses.flatMap((address) => [
      { address, port: database.port, private: false },
      { address, port: PATRONI_REST_PORT, private: true },
    ]),
    { address: database.address, port: ETCD_CLIENT_PORT, private: true },
    { address: database.address, port: ETCD_PEER_PORT, private: true },
  ];
}

/**
 * High-availability PostgreSQL on the local provider: per database one
 * etcd (the consensus store, on the database's address) and three
 * Patroni-managed PostgreSQL members on the member addresses, with
 * synchronous replication, behind a balancer listener on the database's
 * address whose check asks each member's Patroni for `/primary`. Every
 * process runs as the installation's database user, is marked
 * (`<key>.etcd`, `<key>.member-<n>`: Patroni and the postmaster it starts
 * in a session of its own both carry it) and is restarted by the
 * reconciler when it dies. Files: `<dir>/<key>/` root's (ha.json with the
 * secrets, logs, pid files), `etcd/` and `member-<n>/` the database user's
 * (0700), each member's `patroni.yml` 0600 in its folder.
 */

/**
 * What an ha PostgreSQL member runs, and the Debian package of each.
 * Patroni's package depends on one of several stores' clients, and apt
 * takes whichever is there (kazoo, when something brought ZooKeeper's):
 * Patroni then finds no etcd and stops at its start, so python3-etcd, the
 * client its etcd store imports, is asked for by name.
 */
function haTools(): Array<{ name: string; package: string; present: () => boolean }> {
  return [
    { name: 'patroni', package: 'patroni', present: () => findExecutable('patroni') !== null },
    { name: "Patroni's etcd client (python3-etcd)", package: 'python3-etcd', present: () => existsSync('/usr/lib/python3/dist-packages/etcd/__init__.py') },
    { name: 'etcd', package: 'etcd-server', present: () => findExecutable('etcd') !== null },
  ];
}

export class PostgresHa {
  /** When each part was first seen dead, for RESTART_LEADER_AFTER_MS. */
  private readonly downSince = new Map<string, number>();

  constructor(private readonly opts: PostgresHaOptions) {}

  /** This key is an ha database laid out here. */
  holds(key: string): boolean {
    return existsSync(join(this.opts.dir, key, HA_STATE));
  }

  /** What the host lacks for an ha database of `spec`, or null: Patroni, its etcd client, and etcd, and a PostgreSQL build with pg_basebackup and pg_rewind. */
  missing(spec: DatabaseServerSpec): string | null {
    const tools = haTools().filter((t) => !t.present());
    if (tools.length) return `${tools.map((t) => t.name).join(' and ')} ${tools.length > 1 ? 'are' : 'is'} not installed on this host`;
    const chosen = this.distribution(spec);
    return typeof chosen === 'string' ? chosen : null;
  }

  /** Patroni, its etcd client and etcd from Debian; null when those are there (a PostgreSQL build it lacks is not something this host's packages supply). */
  packagesFor(): PackageNeed | null {
    const packages = haTools()
      .filter((t) => !t.present())
      .map((t) => t.package);
    return packages.length ? { packages, why: 'the first high-availability PostgreSQL database on this host' } : null;
  }

  /**
   * The first build of the version with every extension and the tools a
   * member needs to be cloned (pg_basebackup) and to rejoin after a
   * failover (pg_rewind); the npm builds have neither.
   */
  private distribution(spec: DatabaseServerSpec): PostgresDistribution | string {
    const all = findPostgresDistributions(spec.version!);
    const able = all.filter((d) => ['pg_basebackup', 'pg_rewind'].every((tool) => existsSync(join(d.bin, tool))));
    if (all.length > 0 && able.length === 0) {
      return (
        `PostgreSQL ${spec.version} with ha: true needs pg_basebackup and pg_rewind, which this host's PostgreSQL ${spec.version} ` +
        `(${all.map((d) => d.id).join(', ')}) lacks; a full build (Debian's postgresql-${spec.version}) has them`
      );
    }
    return choosePostgresDistribution(spec.version!, spec.extensions, able);
  }

  async observe(key: string): Promise<LocalObservedDatabaseServer | null> {
    const state = this.state(key);
    if (!state) return existsSync(join(this.opts.dir, key)) ? { running: false, ready: false, pid: null } : null;
    const etcd = partPid(this.opts, key, ETCD.name);
    const patronis = this.members(key).map((m) => partPid(this.opts, key, m.name));
    const view = await this.cluster(key);
    const running = etcd !== null || patronis.some((p) => p !== null);
    const primary = view.members.find((m) => m.role === 'primary' && m.health === 'up');
    return {
      running,
      ready: !!state.servedOnce && !!primary,
      pid: etcd,
      members: view.members,
      degraded: view.degraded,
    };
  }

  /**
   * Lays out what is missing, starts what is not running (a member whose
   * data folder is gone is cloned again by its Patroni), keeps the
   * balancer listener, and says ready once all three members run, a
   * synchronous standby streams, the spec is applied through the primary,
   * and the address answers.
   */
  async ensureRunning(spec: DatabaseServerSpec): Promise<LocalObservedDatabaseServer> {
    if (spec.engine !== 'postgres') throw new DriverError('invalid', `high availability (ha: true) of ${spec.engine} is not run by this provider`);
    if (spec.memberAddresses.length !== MEMBERS) throw new DriverError('invalid', `high availability needs ${MEMBERS} member addresses, got ${spec.memberAddresses.length}`);
    if (!this.opts.balancer) throw new DriverError('invalid', 'high availability (ha: true) needs the load balancer, which this worker does not have');
    const runAs = await this.opts.runAs();
    let state = this.state(spec.key);
    const fresh = state === null;
    try {
      if (!state) state = this.layOut(spec, runAs);
      await keepHaListener(this.opts.balancer, spec, HA_POSTGRES_CHECK);
      if (partPid(this.opts, spec.key, ETCD.name) === null) spawnPart(this.opts, spec.key, ETCD.name, this.etcdCommand(spec), runAs, { ETCDCTL_API: '3' });
      // Members start once etcd answers: a Patroni that finds no store at its start backs off for seconds.
      if (!(await etcdHealthy(spec.address))) {
        this.timedOut(spec, state, fresh);
        return { running: true, ready: false, pid: partPid(this.opts, spec.key, ETCD.name) };
      }
      const view = await this.cluster(spec.key);
      this.members(spec.key).forEach((m, n) => {
        if (partPid(this.opts, spec.key, m.name) !== null) return this.downSince.delete(m.key);
        const since = this.downSince.get(m.key) ?? Date.now();
        this.downSince.set(m.key, since);
        const leaderElsewhere = view.members.some((other, i) => i !== n && other.role === 'primary' && other.health === 'up');
        const wasLeader = view.leader === m.name || view.leader === null;
        // No Patroni answered (busy promoting, on a busy host) while another member's runs: one may be taking over.
        const othersRun = this.members(spec.key).some((other, i) => i !== n && partPid(this.opts, spec.key, other.name) !== null);
        const standbyRuns = view.syncStandby !== null ? view.syncStandby !== m.name : !view.answered && othersRun;
        const leaderWait = standbyRuns ? RESTART_LEADER_WITH_STANDBY_MS : RESTART_LEADER_AFTER_MS;
        if (!state!.servedOnce || leaderElsewhere || !wasLeader || Date.now() - since >= leaderWait) {
          this.stopStrays(spec.key, n);
          this.prepareMember(spec.key, n, runAs);
          spawnPart(this.opts, spec.key, m.name, { bin: findExecutable('patroni')!, args: [join(this.memberDir(spec.key, n), 'patroni.yml')] }, runAs, { ETCDCTL_API: '3' });
          this.downSince.delete(m.key);
        }
      });
      const primary = view.members.find((m) => m.role === 'primary' && m.health === 'up');
      const base = { running: true, pid: partPid(this.opts, spec.key, ETCD.name), members: view.members, degraded: view.degraded };
      if (!primary) {
        this.timedOut(spec, state, fresh);
        return { ...base, ready: false };
      }
      const at = spec.memberAddresses.indexOf(primary.address);
      const admin = this.admin(state);
      await admin.configure(spec, { dir: this.memberDir(spec.key, at), data: '', run: join(this.memberDir(spec.key, at), 'run'), log: '' });
      if (!state.servedOnce) {
        // Every member up, both replicas streaming from the primary, the synchronous standby in sync.
        if (view.degraded || !(await this.answers(spec, state))) {
          this.timedOut(spec, state, fresh);
          return { ...base, ready: false };
        }
        state.servedOnce = true;
        this.writeState(spec.key, state);
      }
      return { ...base, ready: true };
    } catch (err) {
      // Never came up: nothing is left of it.
      if (err instanceof DriverError && err.terminal && !state?.servedOnce) await this.delete(spec.key);
      throw err;
    }
  }

  /** Stops every member and etcd, removes the listener and every folder. */
  async delete(key: string): Promise<void> {
    await this.opts.balancer?.deleteListener(haListenerId(key));
    const parts = [ETCD.name, ...Array.from({ length: MEMBERS }, (_, n) => `member-${n}`)];
    // Patroni first: a member whose Patroni is gone never restarts its postmaster.
    for (const [i, name] of [...parts.slice(1), parts[0]].entries()) {
      const pid = partPid(this.opts, key, name);
      if (pid !== null) signalGroup(pid, 'SIGKILL');
      this.stopStrays(key, i < MEMBERS ? i : null);
    }
    const deadline = Date.now() + STOP_GRACE_MS;
    while (this.leadersOf(key).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const leader of this.leadersOf(key)) signalGroup(leader.pid, 'SIGKILL');
    rmSync(join(this.opts.dir, key), { recursive: true, force: true });
    for (const part of parts) this.downSince.delete(`${key}.${part}`);
  }

  /** Everything of this database still running: process-group leaders carrying its marker, as the database user. */
  private leadersOf(key: string): Array<{ pid: number }> {
    const uid = this.opts.accounts.databaseUserNow()?.uid;
    const found: Array<{ pid: number }> = [];
    for (const [id, leaders] of scanMarkedLeaders(this.opts.marker, this.opts.accounts.installation)) {
      if (!id.startsWith(`${key}.`)) continue;
      found.push(...leaders.filter((l) => [process.getuid?.(), uid].includes(processUid(l.pid) ?? -1)));
    }
    return found;
  }

  /**
   * A member's processes left without its Patroni (a postmaster whose
   * Patroni was killed): stopped before a new Patroni starts. The
   * postmaster rewrites its environment for its process title, so it is
   * found by its data folder's postmaster.pid (and its working folder).
   */
  private stopStrays(key: string, n: number | null): void {
    const uid = this.opts.accounts.databaseUserNow()?.uid;
    const partKey = n === null ? `${key}.${ETCD.name}` : `${key}.member-${n}`;
    for (const leader of scanMarkedLeaders(this.opts.marker, this.opts.accounts.installation).get(partKey) ?? []) {
      if ([process.getuid?.(), uid].includes(processUid(leader.pid) ?? -1)) signalGroup(leader.pid, 'SIGKILL');
    }
    if (n === null) return;
    const postmaster = postmasterPid(join(this.memberDir(key, n), 'data'));
    if (postmaster === null || ![process.getuid?.(), uid].includes(processUid(postmaster) ?? -1)) return;
    // Its group is that of the short-lived helper Patroni started it from (setsid); its backends are each in a session of their own.
    killTree(postmaster, readStat(postmaster)?.pgrp);
  }

  private timedOut(spec: DatabaseServerSpec, state: HaState, fresh: boolean): void {
    if (fresh || state.servedOnce) return;
    const since = this.stateStartedAt(spec.key);
    if (since !== null && Date.now() - since > this.opts.startTimeoutMs * 2) {
      throw new DriverError('invalid', `the high-availability members did not all come up within ${this.opts.startTimeoutMs * 2} ms; last output: ${this.tail(spec.key)}`);
    }
  }

  /** What the members' Patroni say of the cluster (patroniView), with each member's health. */
  private async cluster(key: string): Promise<{ members: ObservedDatabaseMember[]; degraded: boolean; leader: string | null; syncStandby: string | null; answered: boolean }> {
    const addresses = this.memberAddresses(key);
    const { listed, answered, leader, syncStandby, whole } = await patroniView(addresses);
    const members = addresses.map((address, n): ObservedDatabaseMember => {
      const m = listed.find((l) => l.name === `member-${n}`);
      const alive = partPid(this.opts, key, `member-${n}`) !== null;
      const up = alive && !!m && patroniMemberRuns(m);
      const lag = m && m.role !== 'leader' && typeof m.lag === 'number' ? { value: m.lag, unit: 'bytes' as const } : null;
      return { address, role: m?.role === 'leader' ? 'primary' : 'replica', health: up ? 'up' : 'down', lag };
    });
    return { members, degraded: members.some((m) => m.health === 'down') || !whole, leader, syncStandby, answered };
  }

  /** The database's address leads to a primary that takes writes (the balancer found it). */
  private async answers(spec: DatabaseServerSpec, state: HaState): Promise<boolean> {
    const client = new Client({ host: spec.address, port: spec.port, user: 'postgres', password: state.superPassword, database: 'postgres', connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query('SELECT pg_is_in_recovery() AS standby');
      return rows[0].standby === false;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The members are administered like a single server (PostgresEngine.configure), as `postgres` with this database's own password. */
  private admin(state: HaState): PostgresEngine {
    return new PostgresEngine(this.opts.templatesDir, { password: state.superPassword, verifier: () => Promise.reject(new Error('not used')) });
  }

  /** The control folder, etcd's folder, the members' folders and settings; ha.json last, so a half-made layout is made again. */
  private layOut(spec: DatabaseServerSpec, runAs: RunAs): HaState {
    const distribution = this.distribution(spec);
    if (typeof distribution === 'string') throw new DriverError('invalid', distribution);
    const dir = join(this.opts.dir, spec.key);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o710 });
    if (runAs.name) chownSync(dir, process.getuid!(), runAs.gid);
    chmodSync(dir, 0o710);
    const state: HaState = { distribution, superPassword: randomToken(32), replicationPassword: randomToken(32), restPassword: randomToken(32) };
    ownedDir(join(dir, 'etcd'), runAs);
    for (let n = 0; n < MEMBERS; n++) {
      const memberDir = this.memberDir(spec.key, n);
      ownedDir(memberDir, runAs);
      ownedDir(join(memberDir, 'run'), runAs);
      const yml = join(memberDir, 'patroni.yml');
      writeFileSync(yml, patroniConfig(spec, n, memberDir, state), { mode: 0o600 });
      if (runAs.name) chownSync(yml, runAs.uid, runAs.gid);
    }
    writeFileSync(join(dir, 'members'), spec.memberAddresses.join('\n') + '\n', { mode: 0o600 });
    writeFileSync(join(dir, 'started-at'), String(Date.now()), { mode: 0o600 });
    this.writeState(spec.key, state);
    return state;
  }

  /** A member's folder and sockets folder as they must be before its Patroni starts (a removed data folder is cloned again by it). */
  private prepareMember(key: string, n: number, runAs: RunAs): void {
    const memberDir = this.memberDir(key, n);
    if (!existsSync(join(memberDir, 'patroni.yml'))) throw new DriverError('invalid', `member ${n} of ${key} lost its settings; delete and create the database again`);
    ownedDir(join(memberDir, 'run'), runAs);
  }

  private etcdCommand(spec: DatabaseServerSpec): { bin: string; args: string[] } {
    const client = `http://${spec.address}:${ETCD_CLIENT_PORT}`;
    const peer = `http://${spec.address}:${ETCD_PEER_PORT}`;
    return {
      bin: findExecutable('etcd')!,
      args: [
        '--name=consensus',
        `--data-dir=${join(this.opts.dir, spec.key, 'etcd')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=consensus=${peer}`,
        '--initial-cluster-state=new',
        // One member: no peer to hear from; short ticks keep lease expiry close to its TTL.
        '--heartbeat-interval=100',
        '--election-timeout=500',
        '--snapshot-count=10000',
        '--auto-compaction-mode=revision',
        '--auto-compaction-retention=1000',
        '--quota-backend-bytes=268435456',
        '--logger=zap',
        '--log-level=warn',
      ],
    };
  }

  private members(key: string): Part[] {
    return Array.from({ length: MEMBERS }, (_, n) => ({ name: `member-${n}`, key: `${key}.member-${n}` }));
  }

  private memberAddresses(key: string): string[] {
    try {
      return readFileSync(join(this.opts.dir, key, 'members'), 'utf8')
        .trim()
        .split('\n');
    } catch {
      return [];
    }
  }

  private memberDir(key: string, n: number): string {
    return join(this.opts.dir, key, `member-${n}`);
  }

  private state(key: string): HaState | null {
    return readHaState<HaState>(this.opts, key);
  }

  private writeState(key: string, state: HaState): void {
    writeHaState(this.opts, key, state);
  }

  private stateStartedAt(key: string): number | null {
    try {
      return Number(readFileSync(join(this.opts.dir, key, 'started-at'), 'utf8'));
    } catch {
      return null;
    }
  }

  private tail(key: string, chars = 400): string {
    return partsTail(this.opts, key, chars);
  }
}

/** The postmaster of a data folder while it runs: postmaster.pid's first line, when that process works in the folder. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 && isAlive(readStat(pid)) && readlinkSync(`/proc/${pid}/cwd`) === dataDir ? pid : null;
  } catch {
    return null;
  }
}

/** etcd on the database's address answers its health endpoint. */
async function etcdHealthy(address: string): Promise<boolean> {
  try {
    const res = await fetch(`http://${address}:${ETCD_CLIENT_PORT}/health`, { signal: AbortSignal.timeout(1_000) });
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/**
 * One member's Patroni settings. The shared part (bootstrap.dcs) is
 * written to etcd by the member that bootstraps the cluster; the timing
 * and synchronous settings are explained in docs/decisions.md.
 */
export function patroniConfig(spec: DatabaseServerSpec, n: number, memberDir: string, state: HaState): string {
  const address = spec.memberAddresses[n];
  const preload = spec.extensions.filter((e) => PRELOADED_EXTENSIONS.includes(e)).map(sqlExtensionName);
  const q = (s: string) => JSON.stringify(s);
  const parameters = [
    `unix_socket_directories: ${q(join(memberDir, 'run'))}`,
    'password_encryption: scram-sha-256',
    'max_connections: 100',
    'shared_buffers: 32MB',
    ...(preload.length ? [`shared_preload_libraries: ${q(preload.join(','))}`] : []),
  ];
  return `# Written by the local provider: member ${n} of ${spec.key}.
scope: ${q(spec.key)}
namespace: /stratus/
name: member-${n}
log:
  level: WARNING
# No watchdog device for an unprivileged user; fencing is the balancer's check and the lease.
watchdog:
  mode: "off"
${patroniRestApi(address, state.restPassword)}
etcd3:
  hosts: ${q(`${spec.address}:${ETCD_CLIENT_PORT}`)}
bootstrap:
${patroniDcs(PATRONI_TIMING)}
  initdb:
    - encoding: UTF8
    - no-locale
    - auth-local: scram-sha-256
    - auth-host: scram-sha-256
postgresql:
  listen: ${q(`${address}:${spec.port}`)}
  connect_address: ${q(`${address}:${spec.port}`)}
  data_dir: ${q(join(memberDir, 'data'))}
  bin_dir: ${q(state.distribution.bin)}
  pgpass: ${q(join(memberDir, 'pgpass'))}
  use_unix_socket: true
  use_unix_socket_repl: false
${PATRONI_BASEBACKUP}
${patroniAuthentication({ superuser: state.superPassword, replication: state.replicationPassword })}
  parameters:
${parameters.map((p) => `    ${p}`).join('\n')}
  pg_hba:
    - local all all scram-sha-256
    - host replication replicator 0.0.0.0/0 scram-sha-256
    - host all all 0.0.0.0/0 scram-sha-256
    - host all all ::/0 scram-sha-256
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
`;
}
