import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig, databaseMemberKey, databaseServerKey, Instance, lookupUser, ManagedDatabase, SecurityGroup, systemUsers } from '@stratus/core';
import {
  FilterLayout,
  FilterMember,
  FilterRule,
  findGroup,
  HostAccounts,
  hostNames,
  installationId,
  LOCAL_HOOKS,
  LocalHooks,
  PacketFilter,
  PublicEndpoint,
} from '@stratus/providers';
import { isIP } from 'node:net';
import { DataSource } from 'typeorm';

/** How often tables of other installations are checked for being orphans. */
const ORPHAN_CHECK_MS = 60_000;

/**
 * Makes the installation's packet filter say what PostgreSQL says: every
 * instance and database server with the rules of its security groups. It is
 * level-based, so any caller may ask at any time (after a create or delete,
 * every reconcile sweep, every catalog sync); callers that ask while a load
 * is waiting share it, and a load never starts before the request it serves.
 *
 * Writes to the table (a whole load, one admitted element) take turns, and a
 * load also carries what was admitted after it read the rows: otherwise a
 * load that read them before a new server's address was written, landing
 * after that address's element, would take it out until the next load.
 */
@Injectable()
export class PacketFilterSync {
  private readonly logger = new Logger(PacketFilterSync.name);
  private readonly installation: string;
  private readonly controlPlaneUids = controlPlaneUids();
  private running: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;
  /** What was last said about enforcement, so it is logged once and not every sweep. */
  private said = '';
  private readonly saidSkipped = new Set<string>();
  private orphansCheckedAt = 0;
  private loadedOnce: Promise<void> | null = null;
  /** Where elements go in the table loaded last; null while none is enforced. */
  private layout: FilterLayout | null = null;
  /** Orders reads of the rows and admissions: a load carries the admissions numbered after its read. */
  private clock = 0;
  /** Members let in by `admit`, by address, with their number, until a load that read the rows after them has landed. */
  private readonly admitted = new Map<string, { member: FilterMember; at: number }>();
  /** The table's writes, one at a time. */
  private writing: Promise<unknown> = Promise.resolve();

  /** The local provider's filter and accounts; null under a provider without them (nothing to load). */
  private readonly filter: PacketFilter | null;
  private readonly accounts: HostAccounts | null;
  private readonly hooks: LocalHooks | null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    @Optional() @Inject(LOCAL_HOOKS) hooks?: LocalHooks,
  ) {
    this.filter = hooks?.packetFilter ?? null;
    this.hooks = hooks ?? null;
    this.accounts = hooks?.accounts ?? null;
    this.installation = installationId(config.DATA_DIR);
  }

  /** Never throws: a filter that cannot be loaded is logged, the caller's work goes on. */
  sync(): Promise<void> {
    // Security groups are the local provider's packet filter; another provider enforces its own.
    if (!this.filter) return Promise.resolve();
    if (this.waiting) return this.waiting;
    const next = this.running.then(async () => {
      this.waiting = null;
      try {
        await this.load();
      } catch (err) {
        this.say(`failed: ${err}`, () => this.logger.error({ err: String(err), table: this.filter?.table }, 'security groups: packet filter not loaded'));
      }
    });
    this.waiting = next;
    this.running = next;
    return next;
  }

  /**
   * Resolves once a table has been loaded since this worker started (or the
   * filter said it cannot be): an instance or server boots only then, so
   * that its very first connection meets the boundary.
   */
  loaded(): Promise<void> {
    this.loadedOnce ??= this.sync();
    return this.loadedOnce;
  }

  /**
   * A new instance, once its user exists and before it is ACTIVE, or a new
   * database server's address, before the server starts (the filter refuses
   * pool addresses it does not know). Its row must hold the address already.
   * Where the loaded table has the chains of its groups these are a few
   * elements (a create waits a few ms, not a whole load of every row).
   */
  async admit(member: FilterMember): Promise<void> {
    // Another provider enforces its own groups: nothing to let in, nothing to remember.
    if (!this.filter) return;
    await this.loaded();
    this.admitted.set(member.address, { member, at: ++this.clock });
    const admitted = await this.write(async () => {
      if (!this.layout || !this.filter) return false;
      return this.filter.admit(member, this.layout).then(
        (status) => status.enforced,
        () => false,
      );
    });
    if (!admitted) await this.sync();
  }

  /** A new instance, as `admit` says, with its own user's uid where it has one and its groups as they are now (they may change during a build). */
  async admitInstance(id: string, address: string): Promise<void> {
    if (!this.filter) return;
    const row = await this.dataSource.getRepository(Instance).findOne({ where: { id }, select: { securityGroupIds: true } });
    // Deleted during its build: nothing to let in (its job finds the row gone and removes what was made).
    if (row) await this.admit(this.instanceMember({ id, address, securityGroupIds: row.securityGroupIds }));
  }

  /** An instance as the table holds it: with its own user's uid where it has one. */
  private instanceMember(instance: Pick<Instance, 'id' | 'securityGroupIds'> & { address: string }, users = systemUsers()): FilterMember {
    const { id, address, securityGroupIds } = instance;
    return { key: id, address, uid: users.get(hostNames.instanceUser(this.installation, id)) ?? null, groupIds: securityGroupIds };
  }

  private write<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.writing.then(fn);
    this.writing = turn.catch(() => undefined);
    return turn;
  }

  private async load(): Promise<void> {
    const [filter, accounts] = [this.filter!, this.accounts!];
    // The instances group and the database user exist before any table names
    // them, and so before anything runs as them: a table loaded without them
    // would not know an instance's or a server's first packets for what they are.
    const readAt = ++this.clock;
    const [instancesGid, databaseUser] = accounts.isolated ? await Promise.all([accounts.instancesGroup(), accounts.databaseUser()]) : [null, null];
    const [instances, databases, groups] = await Promise.all([
      this.dataSource.getRepository(Instance).find({ select: { id: true, address: true, securityGroupIds: true } }),
      this.dataSource
        .getRepository(ManagedDatabase)
        .find({ select: { id: true, engine: true, address: true, port: true, ha: true, memberAddresses: true, securityGroupIds: true } }),
      this.dataSource.getRepository(SecurityGroup).find(),
    ]);
    const users = systemUsers();
    // A resource the network has not given an address yet (or has taken it back from) has nothing to filter.
    let members: FilterMember[] = [
      ...instances.flatMap((i) => (i.address === null ? [] : [this.instanceMember({ ...i, address: i.address }, users)])),
      // Database servers run as a user no instance is and open no connections of their own: ingress only.
      ...databases.flatMap((d) => (d.address === null ? [] : [{ key: databaseServerKey(d), address: d.address, uid: null, groupIds: d.securityGroupIds }])),
      // The members of an ha database, under its groups like its address.
      ...databases.flatMap((d) => d.memberAddresses.map((address, n) => ({ key: databaseMemberKey(d, n), address, uid: null, groupIds: d.securityGroupIds }))),
    ];
    await this.removeOrphanTables(filter);
    const result = await this.write(async () => {
      // Let in since the rows were read: maybe not in them (or without its user), already in the table.
      const since = [...this.admitted.values()].filter(({ at }) => at > readAt).map(({ member }) => member);
      const addresses = new Set(since.map((m) => m.address));
      members = [...members.filter((m) => !addresses.has(m.address)), ...since];
      const applied = await filter.apply({
        pool: this.config.LOCAL_ADDRESS_POOL,
        instancesGid,
        confinedUids: databaseUser ? [databaseUser.uid] : [],
        controlPlaneUids: this.controlPlaneUids,
        members,
        groups: Object.fromEntries(groups.map((g) => [g.id, g.rules as FilterRule[]])),
        publicEndpoints: this.publicEndpoints(),
        // The servers of an ha database reach one another (replication, failover, consensus), and only those ports.
        serverPeers: databases.flatMap((d) =>
          d.ha && d.address !== null && d.memberAddresses.length
            ? this.hooks!.databasePeers({ engine: d.engine, address: d.address, port: d.port, memberAddresses: d.memberAddresses })
            : [],
        ),
      });
      // Within the turn: an admission next in line must meet the chains of this table, not the last one's.
      this.layout = applied.enforced ? applied.layout : null;
      return applied;
    });
    // Rows read after an admission hold its address (or its resource is gone): the table has it from them.
    for (const [address, { at }] of this.admitted) if (at < readAt) this.admitted.delete(address);
    for (const skipped of result.skipped) {
      if (this.saidSkipped.has(skipped)) continue;
      this.saidSkipped.add(skipped);
      this.logger.warn({ table: filter.table }, `security groups: ${skipped}`);
    }
    if (result.enforced) {
      this.say('enforced', () => this.logger.log({ table: filter.table, members: members.length }, 'security groups: enforced by nftables'));
    } else {
      const { reason } = result;
      this.say(reason, () => this.logger.warn({ reason }, 'security groups: NOT enforced, instances run unfiltered'));
    }
  }

  /**
   * Tables of installations gone from the host (their instances group
   * removed with their accounts) are removed, at most once a minute: their
   * rules name a gid and uids the host hands out again, to this
   * installation's instances too.
   */
  private async removeOrphanTables(filter: PacketFilter): Promise<void> {
    if (Date.now() - this.orphansCheckedAt < ORPHAN_CHECK_MS) return;
    this.orphansCheckedAt = Date.now();
    // A worker makes its group before its first table, so a table without one is a gone installation's.
    const removed = await filter.removeOrphans((table) => {
      const installation = /^stratus_([0-9a-f]{8})$/.exec(table)?.[1];
      try {
        return !!installation && findGroup(hostNames.instancesGroup(installation)) === null;
      } catch {
        return false; // /etc/group unreadable: say nothing is gone
      }
    });
    if (removed.length) this.logger.log({ tables: removed }, 'security groups: tables of installations gone from the host removed');
  }

  /** What instances may call on the host although it is outside the pool: the API, the edge's listeners. */
  private publicEndpoints(): PublicEndpoint[] {
    const c = this.config;
    const endpoints: Array<[string, { from: number; to: number }]> = [
      [c.API_HOST, { from: c.API_PORT, to: c.API_PORT }],
      [c.EDGE_HTTP_HOST, { from: c.EDGE_HTTP_PORT, to: c.EDGE_HTTP_PORT }],
      [c.GATEWAY_HOST, c.gatewayPorts],
    ];
    return endpoints.flatMap(([host, ports]) => addressesOf(host).map((address) => ({ address, ports })));
  }

  private say(what: string, log: () => void): void {
    if (this.said === what) return;
    this.said = what;
    log();
  }
}

/**
 * Senders that reach every pool address whatever the groups say: root (the
 * edge, the API's probes), the worker itself (readiness and health probes),
 * and the user the edge's HAProxy drops to (proxy hosts, gateway routes).
 */
function controlPlaneUids(): number[] {
  const uids = [0, process.getuid?.() ?? 0];
  const haproxy = lookupUser('haproxy');
  if (haproxy) uids.push(haproxy.uid);
  return [...new Set(uids)];
}

/**
 * The addresses a host setting names. A listener on the wildcard is reached
 * by instances on loopback (127.0.0.1, ::1), never as "any local address":
 * that would open every host service on the same port.
 */
function addressesOf(host: string): string[] {
  if (host === '0.0.0.0') return ['127.0.0.1'];
  if (host === '::') return ['127.0.0.1', '::1'];
  if (host === 'localhost') return ['127.0.0.1', '::1'];
  return isIP(host) ? [host] : [];
}
