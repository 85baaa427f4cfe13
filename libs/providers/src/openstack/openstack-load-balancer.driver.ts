import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../driver-error';
import {
  ANY_HOST,
  BackendSpec,
  HEALTH_CHECK_DEFAULTS,
  HealthCheckSpec,
  invalidBackend,
  invalidListener,
  ListenerSpec,
  LoadBalancerDriver,
  ObservedBackend,
  ObservedListener,
  portTaken,
} from '../load-balancer.driver';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { SharedTurns } from '../shared-turns';
import { foundOrNull, keeper, MARK, until } from './openstack-resources';

interface OctaviaLoadBalancer {
  id: string;
  name: string;
  vip_address: string;
  provisioning_status: string;
  operating_status: string;
  created_at: string;
  tags?: string[];
}

interface OctaviaListener {
  id: string;
  protocol: string;
  protocol_port: number;
  default_pool_id: string | null;
  provisioning_status: string;
}

interface OctaviaPool {
  id: string;
  name: string;
  created_at: string;
  protocol: string;
  provisioning_status: string;
  healthmonitor_id: string | null;
  loadbalancers: Array<{ id: string }>;
  tags?: string[];
}

interface OctaviaMember {
  id: string;
  address: string;
  protocol_port: number;
  weight: number;
  monitor_port: number | null;
  provisioning_status: string;
  operating_status: string;
}

interface OctaviaMonitor {
  id: string;
  type: string;
  delay: number;
  timeout: number;
  max_retries: number;
  max_retries_down: number;
  url_path?: string;
}

interface OctaviaPolicy {
  id: string;
  name: string;
  redirect_pool_id: string | null;
}

interface OctaviaRule {
  id: string;
  type: string;
  compare_type: string;
  value: string;
}

/** One look at a load balancer: its Octavia listeners and pools. */
interface Look {
  lb: OctaviaLoadBalancer;
  listeners: OctaviaListener[];
  pools: OctaviaPool[];
}

export interface OpenStackLoadBalancerOptions {
  /** How long one call waits for Octavia to take a change (PENDING_* → ACTIVE) before it is retried later. */
  waitMs?: number;
  /** Between two looks at a load balancer's provisioning_status. */
  pollMs?: number;
  /**
   * Whether Octavia's health checks reach the members (OPENSTACK_DATA_PATH;
   * true on a real cloud). false is the simulation for a cloud without a data
   * path, whose Octavia checks nothing and leaves every member OFFLINE: a
   * member Octavia took (ACTIVE) then counts as up.
   */
  dataPath?: boolean;
  /**
   * Turns shared with the other processes of the control plane (the
   * worker's PostgresTurns), so that two workers never send one load
   * balancer two changes at once. Without them, turns are this process's
   * only: enough for one worker, and for the tests of the driver alone.
   */
  shared?: SharedTurns;
}

/** Octavia counts a member's checks from 1 to 10 (MIN_HM_RETRIES, MAX_HM_RETRIES). */
const MAX_RETRIES = 10;
/**
 * Tag prefixes on a listener id's pool: what the seam holds that Octavia has
 * no field for (the check as asked, the names), and the port it asked for,
 * which no Octavia object links the pool to while an HTTP listener has no
 * names, and which tells another id's run the port is taken.
 */
const HOST_TAG = 'stratus-host:';
const CHECK_TAG = 'stratus-check:';
const PORT_TAG = 'stratus-port:';
/** A backend's weight while it takes connections; 0 is Octavia's drain (no new connections, open ones go on). */
const ACTIVE_WEIGHT = 1;
/** Answers of Octavia that mean "busy now, try again once it is ACTIVE": `… is immutable and cannot be updated`. */
const IMMUTABLE = /immutable/i;
/** Octavia's 409 for an object another run made first: `… is already using …`, `… already has a health monitor`. */
const ALREADY = /already/i;
const PROTOCOL = { tcp: 'TCP', http: 'HTTP' } as const;

/**
 * Load balancers on Octavia (v2). Octavia gives an address to one load
 * balancer, so there is one per address the listeners ask for, its VIP,
 * named and tagged after the address (MARK.addressName, addressTag): a
 * repeat looks before it creates, copies two racing runs made are deleted,
 * the oldest stays. On it, one Octavia listener per port (TCP or HTTP),
 * shared by the listener ids on that port. A listener id is its own pool
 * (ROUND_ROBIN, named and tagged with the id, MARK, and with its port,
 * names and check as asked), the pool's health monitor from `check`, and a
 * member per backend. A TCP id's pool is its port's default pool, so a TCP
 * port is one id's; an HTTP id's names are one L7 policy (a Host header
 * rule) that sends them to its pool, and with ANY_HOST among them its pool
 * is the default and takes every other name. A port another id holds
 * (portTaken, as the pools' tags say) is refused (or waited for: a TCP
 * port) before anything is changed. Deleting an id takes its pool and
 * policy; an Octavia listener left serving nothing goes, and a load
 * balancer left with nothing goes too (a run of another id on it meanwhile
 * finds it going, and its retry makes another).
 *
 * The VIP is the address: on the Neutron port that holds it (the port the
 * network driver made for the resource) when there is one, else on the
 * project's subnet that contains it, Octavia making the port. Octavia
 * cannot move a VIP: an id whose address changed is deleted where it was
 * and made on the other address's load balancer, its members as they were.
 *
 * Octavia takes one change at a time per load balancer (PENDING_UPDATE
 * until the driver behind it is done, a 409 "immutable" meanwhile), so the
 * ids of one address wait for one another: every change waits for ACTIVE
 * before it is sent, and a 409 that still comes (another worker's change)
 * is waited out: an update, a delete or a member is sent again, a create
 * is looked for first.
 *
 * A load balancer Octavia put in ERROR takes no change but its delete, and
 * Octavia's own repair (a failover) is an admin's under its default
 * policy, so a project's user can only delete it and make another: the
 * next ensureListener on its address does (`replace`), the id's members
 * carried over. The address's other ids go with it; their reconcilers,
 * which observe them missing, make them again. A change that finds it in
 * ERROR is a retryable error, for that next run; deleting an id on it
 * deletes all of it. A pool or Octavia listener in ERROR on a load balancer
 * that is not is made again by the next ensure of its id (a pool's members
 * carried over; an HTTP listener's other Host rules made again by their
 * own ids' reconcilers).
 *
 * Not held by Octavia: TLS (TERMINATED_HTTPS needs the certificate in
 * Barbican, which this provider does not write: refused as invalid), and
 * a member's open connections (`connections` is 0: Octavia counts them per
 * listener only). `removeBackend` deletes the member; Octavia's amphora
 * lets its connections end, but no `removing` state is seen meanwhile.
 */
export class OpenStackLoadBalancerDriver implements LoadBalancerDriver {
  private readonly waitMs: number;
  private readonly pollMs: number;
  private readonly dataPath: boolean;
  /**
   * The operation under way on each load balancer (by its address) in this
   * process, which the next one waits for: Octavia's API checks an
   * object's state before it commits, so two changes sent at once to one
   * load balancer can both pass (a pool deleted twice, a monitor made on a
   * pool being deleted); its worker then fails the second, and the load
   * balancer stays PENDING_UPDATE for good, refusing every change. Across
   * processes, `shared` takes the same turn; the queue here keeps a process
   * to one session waiting per address.
   */
  private readonly turns = new Map<string, Promise<unknown>>();
  private readonly shared: SharedTurns | null;

  constructor(
    private readonly client: OpenStackClient,
    opts: OpenStackLoadBalancerOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? 180_000;
    this.pollMs = opts.pollMs ?? 500;
    this.dataPath = opts.dataPath ?? true;
    this.shared = opts.shared ?? null;
  }

  ensureListener(spec: ListenerSpec): Promise<void> {
    return this.inTurn(spec.address, () => this.ensureNow(spec));
  }

  private async ensureNow(spec: ListenerSpec): Promise<void> {
    const invalid = invalidListener(spec);
    if (invalid) throw new DriverError('invalid', invalid);
    if (spec.tls) {
      throw new DriverError(
        'invalid',
        'TLS is not terminated by Octavia load balancers here: TERMINATED_HTTPS needs the certificate in Barbican, and this provider keeps none there',
      );
    }
    const { fall, rise } = monitorTiming(spec.check);
    if (fall > MAX_RETRIES || rise > MAX_RETRIES) throw new DriverError('invalid', `Octavia counts at most ${MAX_RETRIES} checks for fall and rise`);

    let lb = await this.lbAt(spec.address);
    if (lb) {
      const { pools } = await this.look(lb);
      // Before anything is made or moved: a refusal leaves every listener as it was.
      refuseTaken(spec, pools);
      if (lb.provisioning_status === 'ERROR') return this.replace(lb, pools, spec);
    }
    const away: OctaviaPool[] = [];
    for (const pool of await this.poolsOf(spec.id)) {
      const its = await this.lbOfPool(pool);
      if (its && its.vip_address !== spec.address) away.push(pool);
    }
    if (away.length > 0) {
      // Octavia cannot move a VIP: the id's address changed, so it is made again on the other load balancer, its members with it.
      // An address no port or subnet holds is refused before the old pool goes.
      if (!lb) await this.vip(spec.address);
      const members = await this.poolMembers(keeper(away, (p) => p.created_at).id);
      // (Each old load balancer in its own turn: another address's, so this one's turn, held here, is not waited for.)
      for (const lbId of new Set(away.flatMap((p) => p.loadbalancers.map((l) => l.id)))) {
        const old = await this.lbById(lbId);
        if (old) await this.inTurn(old.vip_address, () => this.deleteFrom(lbId, spec.id));
      }
      await until(`the old pool of ${spec.id} to go`, async () => (await this.poolsOf(spec.id, true)).length === 0, this.waitMs, this.pollMs);
      await this.ensureWith(spec, members);
      return;
    }
    if (!lb) {
      await this.client.post('load-balancer', '/lbaas/loadbalancers', {
        loadbalancer: {
          name: MARK.addressName(spec.address),
          description: `stratus listeners on ${spec.address}`,
          tags: [MARK.managedTag, MARK.addressTag(spec.address)],
          ...(await this.vip(spec.address)),
        },
      });
      // Looked up again rather than taken from the answer: two runs that raced both see the one that stays.
      lb = await this.lbAt(spec.address);
      if (!lb) throw new DriverError('retryable', `the load balancer of ${spec.address} is not listed yet`);
    }
    // A change another run made meanwhile (Octavia's 409: busy, or "already" there; a 404: deleted under this run)
    // is seen by a fresh look, not sent twice.
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      try {
        await this.reconcile(lb.id, spec);
        return;
      } catch (err) {
        // (A 404 may come as gone404's retryable error: its cause is Octavia's answer.)
        const answer = err instanceof DriverError && err.cause instanceof OpenStackError ? err.cause : err;
        const seenAgain =
          answer instanceof OpenStackError && (answer.status === 404 || (answer.status === 409 && (IMMUTABLE.test(answer.message) || ALREADY.test(answer.message))));
        if (!seenAgain || Date.now() > deadline) throw err;
      }
    }
  }

  /** ensureNow, then the members as they were (drained ones drained): an id made again elsewhere, its old pool gone. */
  private async ensureWith(spec: ListenerSpec, members: OctaviaMember[]): Promise<void> {
    await this.ensureNow(spec);
    // One being removed stays removed.
    const kept = members.filter(live);
    for (const m of kept) await this.addMember(spec.id, { address: m.address, port: m.protocol_port });
    for (const m of kept) if (m.weight === 0) await this.drainNow(spec.id, { address: m.address, port: m.protocol_port });
  }

  /**
   * The address's load balancer, in ERROR, deleted and made again, the
   * spec's id on it with its members. Octavia changes a load balancer in
   * ERROR no more, and its own repair (a failover) is an admin's under its
   * default policy: all a project's user can do is delete it and make
   * another. The address's other ids go with it; their reconcilers, which
   * observe them missing, make them again.
   */
  private async replace(lb: OctaviaLoadBalancer, pools: OctaviaPool[], spec: ListenerSpec): Promise<void> {
    const mine = pools.filter((p) => idOfPool(p) === spec.id && live(p));
    const members = mine.length > 0 ? await this.poolMembers(keeper(mine, (p) => p.created_at).id) : [];
    await this.deleteLb(lb.id);
    // Octavia holds the VIP until the delete is done: the new load balancer waits for it.
    await until(
      `the load balancer in ERROR of ${spec.id} to go`,
      async () => ((await this.lbById(lb.id))?.provisioning_status ?? 'DELETED') === 'DELETED',
      this.waitMs,
      this.pollMs,
    );
    await this.ensureWith(spec, members);
  }

  /** Brings the id's pool, monitor, Octavia listener, policy and members on the load balancer to `spec`, from a fresh look. */
  private async reconcile(lbId: string, spec: ListenerSpec): Promise<void> {
    const look = await this.look(await this.active(lbId, spec.id));
    const { lb } = look;
    // Looked at again: another id may have taken the port since the first look.
    refuseTaken(spec, look.pools);
    const protocol = PROTOCOL[spec.protocol];
    const mine = look.pools.filter((p) => idOfPool(p) === spec.id && live(p));
    let kept: OctaviaPool | null = mine.length > 0 ? keeper(mine, (p) => p.created_at) : null;
    // Copies two racing runs made, and a pool of another protocol (Octavia's is fixed): unlinked, then deleted.
    const dropped = mine.filter((p) => p.id !== kept?.id);
    let members: OctaviaMember[] = [];
    // A pool in ERROR (Octavia's driver failed a change of it, on a load balancer that is fine) is made again too,
    // its members carried over: what it holds is not known to be what was asked.
    if (kept && (kept.protocol !== protocol || kept.provisioning_status === 'ERROR')) {
      members = await this.poolMembers(kept.id);
      dropped.push(kept);
      kept = null;
    }
    const found = look.listeners.find((l) => l.protocol_port === spec.port) ?? null;
    // An Octavia listener's protocol is fixed too: one of the other protocol on the port (only this id's, refuseTaken says) is
    // made again, as is one in ERROR. An HTTP listener carries the Host policies of other ids on the port: they go with it,
    // and their reconcilers, which then observe them missing, make them again (as for a load balancer replaced).
    const replaced = found && (found.protocol !== protocol || found.provisioning_status === 'ERROR') ? found : null;
    await this.unlink(
      look,
      spec.id,
      mine.map((p) => p.id),
      dropped.map((p) => p.id),
      replaced ? null : (found?.id ?? null),
    );
    if (replaced) await this.change(lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/listeners/${replaced.id}`), { gone: true });
    for (const old of dropped) await this.change(lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/pools/${old.id}`), { gone: true });

    const pool = await this.ensurePool(lb, kept, spec);
    for (const m of members) {
      const member = { address: m.address, protocol_port: m.protocol_port, weight: m.weight, name: `${m.address}:${m.protocol_port}`, monitor_port: spec.check.port };
      await this.change(lb.id, spec.id, () => this.client.post('load-balancer', `/lbaas/pools/${pool.id}/members`, { member }));
    }
    await this.ensureMonitor(lb, pool, spec);
    const target = replaced || !found ? null : await this.listenerById(found.id);
    const listener = await this.ensureOctaviaListener(lb, target, pool, spec);
    const hosts = hostsOf(spec);
    await this.ensureHostPolicy(lb, listener, pool, spec.id, spec.protocol === 'http' && !hosts.includes(ANY_HOST) ? hosts : []);
    // The check's port is the members' monitor_port: those there already follow it.
    for (const m of await this.poolMembers(pool.id)) {
      if ((m.monitor_port ?? null) !== (spec.check.port ?? null)) {
        await this.change(lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/pools/${pool.id}/members/${m.id}`, { member: { monitor_port: spec.check.port ?? null } }));
      }
    }
  }

  async deleteListener(id: string): Promise<void> {
    const lbIds = new Set<string>();
    for (const pool of await this.poolsOf(id)) for (const { id: lbId } of pool.loadbalancers) lbIds.add(lbId);
    for (const lbId of lbIds) {
      const lb = await this.lbById(lbId);
      if (lb) await this.inTurn(lb.vip_address, () => this.deleteFrom(lbId, id));
    }
  }

  /** Takes the id's pools and policy off one load balancer, and gives back what it left serving nothing. */
  private async deleteFrom(lbId: string, id: string): Promise<void> {
    // A load balancer being changed refuses a delete (409): what goes is deleted once it is ACTIVE or in ERROR.
    const lb = await this.settled(lbId, id);
    if (!lb) return;
    const look = await this.look(lb);
    const mine = look.pools.filter((p) => idOfPool(p) === id && live(p));
    if (mine.length > 0 && lb.provisioning_status === 'ERROR') {
      // Octavia refuses every change of a load balancer in ERROR but its delete: the id's pool goes with all of it,
      // the address's other ids too (made again on another by their reconcilers, as `replace` says).
      await this.deleteLb(lbId);
      return;
    }
    await this.unlink(
      look,
      id,
      mine.map((p) => p.id),
      [],
      null,
    );
    // Its monitor and members go with it.
    for (const pool of mine) await this.change(lbId, id, () => this.client.delete('load-balancer', `/lbaas/pools/${pool.id}`), { gone: true });
    await this.giveBack(lbId, id);
  }

  async addBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    const invalid = invalidBackend(backend);
    if (invalid) throw new DriverError('invalid', invalid);
    await this.inTurnOf(listenerId, () => this.addMember(listenerId, backend));
  }

  private addMember(listenerId: string, backend: BackendSpec): Promise<void> {
    return gone404(() => this.addMemberNow(listenerId, backend), `the pool of listener ${listenerId}`);
  }

  private async addMemberNow(listenerId: string, backend: BackendSpec): Promise<void> {
    const { lb, pool } = await this.required(listenerId);
    const member = (await this.poolMembers(pool.id)).find((m) => same(m, backend));
    if (member) {
      if (member.weight !== ACTIVE_WEIGHT) {
        await this.change(lb.id, listenerId, () => this.client.put('load-balancer', `/lbaas/pools/${pool.id}/members/${member.id}`, { member: { weight: ACTIVE_WEIGHT } }));
      }
      return;
    }
    const check = checkOf(pool);
    try {
      await this.change(lb.id, listenerId, () =>
        this.client.post('load-balancer', `/lbaas/pools/${pool.id}/members`, {
          member: {
            address: backend.address,
            protocol_port: backend.port,
            weight: ACTIVE_WEIGHT,
            name: `${backend.address}:${backend.port}`,
            ...(check?.port ? { monitor_port: check.port } : {}),
          },
        }),
      );
    } catch (err) {
      // Octavia keeps one member per address and port: another run added it first, and the look again finds it
      // (or one still on its way out, which the job's next run adds again).
      if (!(err instanceof OpenStackError && err.status === 409 && ALREADY.test(err.message))) throw err;
      const theirs = (await this.poolMembers(pool.id)).find((m) => same(m, backend) && m.provisioning_status !== 'PENDING_DELETE');
      if (!theirs) throw new DriverError('retryable', `backend ${backend.address}:${backend.port} of listener ${listenerId} is still being removed`);
      if (theirs.weight !== ACTIVE_WEIGHT) await this.addMemberNow(listenerId, backend);
    }
  }

  drainBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    return this.inTurnOf(listenerId, () => this.drainNow(listenerId, backend));
  }

  private async drainNow(listenerId: string, backend: BackendSpec): Promise<void> {
    const { lb, pool } = await this.required(listenerId);
    const member = (await this.poolMembers(pool.id)).find((m) => same(m, backend));
    if (!member) throw new DriverError('not_found', `listener ${listenerId} has no backend ${backend.address}:${backend.port}`);
    if (member.weight === 0) return;
    await gone404(
      () => this.change(lb.id, listenerId, () => this.client.put('load-balancer', `/lbaas/pools/${pool.id}/members/${member.id}`, { member: { weight: 0 } })),
      `backend ${backend.address}:${backend.port} of listener ${listenerId}`,
    );
  }

  removeBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    return this.inTurnOf(listenerId, () => this.removeNow(listenerId, backend));
  }

  private async removeNow(listenerId: string, backend: BackendSpec): Promise<void> {
    const pool = await this.poolOf(listenerId);
    const lb = pool && (await this.lbOfPool(pool));
    if (!pool || !lb) return;
    const member = (await this.poolMembers(pool.id)).find((m) => same(m, backend));
    if (!member || member.provisioning_status === 'PENDING_DELETE') return;
    await this.change(lb.id, listenerId, () => this.client.delete('load-balancer', `/lbaas/pools/${pool.id}/members/${member.id}`));
  }

  async observe(id: string): Promise<ObservedListener | null> {
    const pool = await this.poolOf(id);
    const lb = pool && (await this.lbOfPool(pool));
    if (!pool || !lb) return null;
    const port = portOf(pool);
    const [{ listeners }, members] = await Promise.all([
      this.client.get<{ listeners: OctaviaListener[] }>('load-balancer', '/lbaas/listeners', { query: { loadbalancer_id: lb.id } }),
      this.poolMembers(pool.id),
    ]);
    const listener = listeners.find((l) => l.protocol_port === port) ?? null;
    const backends: ObservedBackend[] = members.map((m) => ({
      address: m.address,
      port: m.protocol_port,
      state: m.provisioning_status === 'PENDING_DELETE' ? 'removing' : m.weight === 0 ? 'draining' : 'active',
      health: this.health(m),
      connections: 0,
    }));
    const hosts = hostTags(pool);
    // Served once its port's listener sends it traffic: as the default pool, or by the id's Host policy (an HTTP id with no names takes none).
    const linked =
      listener !== null &&
      (listener.default_pool_id === pool.id ||
        (pool.protocol === 'HTTP' && (hosts.length === 0 || (await this.policiesOf(listener.id)).some((p) => p.redirect_pool_id === pool.id))));
    let status: string;
    if (lb.provisioning_status === 'ERROR') status = `the Octavia load balancer ${lb.id} is in ERROR`;
    else if (listener?.provisioning_status === 'ERROR') status = `the Octavia listener ${listener.id} is in ERROR`;
    else if (pool.provisioning_status === 'ERROR') status = `the Octavia pool ${pool.id} is in ERROR`;
    else if (!linked || lb.provisioning_status === 'PENDING_CREATE' || listener.provisioning_status === 'PENDING_CREATE') status = 'pending';
    else status = 'ok';
    const check = checkOf(pool);
    const protocol = pool.protocol === 'HTTP' ? 'http' : 'tcp';
    const spec: ListenerSpec | undefined = check && port !== null ? { id, address: lb.vip_address, port, protocol, ...(protocol === 'http' ? { hosts } : {}), check } : undefined;
    return { status, backends, ...(spec ? { spec } : {}) };
  }

  async listenerIds(prefix: string): Promise<string[]> {
    const { pools } = await this.client.get<{ pools: OctaviaPool[] }>('load-balancer', '/lbaas/pools', { query: { tags: MARK.managedTag } });
    const ids = new Set<string>();
    for (const pool of pools) {
      const id = idOfPool(pool);
      if (id !== null && live(pool) && id.startsWith(prefix)) ids.add(id);
    }
    return [...ids].sort();
  }

  /** Runs `fn` once the operations on the load balancer of `address` before it, in this process and then in every other (`shared`), are done (see `turns`). */
  private async inTurn<T>(address: string, fn: () => Promise<T>): Promise<T> {
    const shared = this.shared;
    const mine = shared ? () => shared.take(`octavia load balancer ${address}`, fn) : fn;
    const run = (this.turns.get(address) ?? Promise.resolve()).catch(() => undefined).then(mine);
    const done = run.catch(() => undefined);
    this.turns.set(address, done);
    try {
      return await run;
    } finally {
      if (this.turns.get(address) === done) this.turns.delete(address);
    }
  }

  /** inTurn on the load balancer the listener id's pool is on (one it has none on waits for nothing: there is nothing to change). */
  private async inTurnOf<T>(listenerId: string, fn: () => Promise<T>): Promise<T> {
    const pool = await this.poolOf(listenerId);
    const lb = pool && (await this.lbOfPool(pool));
    return lb ? this.inTurn(lb.vip_address, fn) : fn();
  }

  /** What Octavia's checks say of a member (see `dataPath` for a cloud where none run). */
  private health(m: OctaviaMember): ObservedBackend['health'] {
    if (!this.dataPath) return m.provisioning_status === 'ACTIVE' ? 'up' : 'unknown';
    return m.operating_status === 'ONLINE' ? 'up' : m.operating_status === 'ERROR' ? 'down' : 'unknown';
  }

  /** The VIP fields of a new load balancer on `address`: the Neutron port that holds it, else the subnet that contains it. */
  private async vip(address: string): Promise<Record<string, string>> {
    const { ports } = await this.client.get<{ ports: Array<{ id: string; fixed_ips: Array<{ ip_address: string; subnet_id: string }> }> }>('network', '/ports', {
      query: { fixed_ips: `ip_address=${address}` },
    });
    if (ports.length === 1) {
      // The subnet named as well: Octavia's API otherwise asks its network driver for the port's subnet, which not every
      // driver can say (its no-op one answers a port without addresses, and the create is refused with a 400).
      const subnet = ports[0].fixed_ips.find((ip) => ip.ip_address === address)?.subnet_id;
      return { vip_port_id: ports[0].id, vip_address: address, ...(subnet ? { vip_subnet_id: subnet } : {}) };
    }
    const { subnets } = await this.client.get<{ subnets: Array<{ id: string; cidr: string; ip_version: number }> }>('network', '/subnets');
    const subnet = subnets.find((s) => s.ip_version === 4 && contains(s.cidr, address));
    if (!subnet) throw new DriverError('invalid', `no Neutron port holds ${address} and no subnet of the project contains it: a load balancer cannot listen there`);
    return { vip_subnet_id: subnet.id, vip_address: address };
  }

  /**
   * Takes the id's links off the load balancer's Octavia listeners: those
   * to `drop` (pools about to be deleted) everywhere, and every link of the
   * id but on `stay` (the listener it stays on). Octavia refuses to delete
   * a pool a policy sends to. A listener left with no default pool and no
   * policy serves nothing and is deleted, `stay` aside.
   */
  private async unlink(look: Look, id: string, mine: string[], drop: string[], stay: string | null): Promise<void> {
    for (const listener of look.listeners) {
      const off = new Set(listener.id === stay ? drop : mine);
      if (off.size === 0) continue;
      // Octavia has L7 policies on HTTP listeners only.
      const policies = listener.protocol === 'HTTP' ? await this.policiesOf(listener.id) : [];
      const linked = policies.filter((p) => (p.redirect_pool_id !== null && off.has(p.redirect_pool_id)) || (listener.id !== stay && p.name === MARK.name(id)));
      const byDefault = listener.default_pool_id !== null && off.has(listener.default_pool_id);
      if (linked.length === 0 && !byDefault) continue;
      if (listener.id !== stay && linked.length === policies.length && (byDefault || listener.default_pool_id === null)) {
        // Its policies go with it.
        await this.change(look.lb.id, id, () => this.client.delete('load-balancer', `/lbaas/listeners/${listener.id}`), { gone: true });
        continue;
      }
      for (const p of linked) await this.change(look.lb.id, id, () => this.client.delete('load-balancer', `/lbaas/l7policies/${p.id}`), { gone: true });
      if (byDefault) {
        await this.change(look.lb.id, id, () => this.client.put('load-balancer', `/lbaas/listeners/${listener.id}`, { listener: { default_pool_id: null } }), { gone: true });
      }
    }
  }

  /** The id's pool, made when missing; its tags (port, names, check as asked) brought to `spec`. */
  private async ensurePool(lb: OctaviaLoadBalancer, pool: OctaviaPool | null, spec: ListenerSpec): Promise<OctaviaPool> {
    const tags = [MARK.managedTag, MARK.idTag(spec.id), PORT_TAG + spec.port, checkTag(spec.check), ...(spec.protocol === 'http' ? hostsOf(spec).map((h) => HOST_TAG + h) : [])];
    if (!pool) {
      return this.change(
        lb.id,
        spec.id,
        async () => {
          const made = await this.client.post<{ pool: OctaviaPool }>('load-balancer', '/lbaas/pools', {
            pool: { loadbalancer_id: lb.id, protocol: PROTOCOL[spec.protocol], lb_algorithm: 'ROUND_ROBIN', name: MARK.name(spec.id), tags },
          });
          return made.pool;
        },
        { resend: false },
      );
    }
    if (!sameTags(pool.tags, tags)) {
      const poolId = pool.id;
      await this.change(lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/pools/${poolId}`, { pool: { tags } }));
    }
    return pool;
  }

  private async ensureMonitor(lb: OctaviaLoadBalancer, pool: OctaviaPool, spec: ListenerSpec): Promise<void> {
    const { delay, fall, rise } = monitorTiming(spec.check);
    const type = spec.check.kind === 'http' ? 'HTTP' : 'TCP';
    const timing = { delay, timeout: delay, max_retries: rise, max_retries_down: fall };
    const http = type === 'HTTP' ? { url_path: spec.check.path, http_method: 'GET', expected_codes: '200-399' } : {};
    const current = pool.healthmonitor_id
      ? (await this.client.get<{ healthmonitor: OctaviaMonitor }>('load-balancer', `/lbaas/healthmonitors/${pool.healthmonitor_id}`)).healthmonitor
      : null;
    if (current && current.type !== type) {
      // A monitor's type is fixed in Octavia: another kind of check is another monitor.
      await this.change(lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/healthmonitors/${current.id}`));
    } else if (current) {
      const same =
        current.delay === timing.delay &&
        current.timeout === timing.timeout &&
        current.max_retries === timing.max_retries &&
        current.max_retries_down === timing.max_retries_down &&
        (type !== 'HTTP' || current.url_path === spec.check.path);
      if (!same) await this.change(lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/healthmonitors/${current.id}`, { healthmonitor: { ...timing, ...http } }));
      return;
    }
    await this.change(
      lb.id,
      spec.id,
      () => this.client.post('load-balancer', '/lbaas/healthmonitors', { healthmonitor: { pool_id: pool.id, type, name: MARK.name(spec.id), ...timing, ...http } }),
      { resend: false },
    );
  }

  /**
   * The Octavia listener of the spec's port, made when missing, with the
   * id's pool as its default when the id takes the whole port (TCP) or
   * every other name (ANY_HOST); an id that no longer does gives the
   * default up. Another id's default is not touched (refuseTaken).
   */
  private async ensureOctaviaListener(lb: OctaviaLoadBalancer, listener: OctaviaListener | null, pool: OctaviaPool, spec: ListenerSpec): Promise<OctaviaListener> {
    const isDefault = spec.protocol === 'tcp' || hostsOf(spec).includes(ANY_HOST);
    if (!listener) {
      return this.change(
        lb.id,
        spec.id,
        async () =>
          (
            await this.client.post<{ listener: OctaviaListener }>('load-balancer', '/lbaas/listeners', {
              listener: {
                loadbalancer_id: lb.id,
                protocol: PROTOCOL[spec.protocol],
                protocol_port: spec.port,
                name: `${MARK.addressName(spec.address)}-${spec.port}`,
                default_pool_id: isDefault ? pool.id : null,
                tags: [MARK.managedTag],
              },
            })
          ).listener,
        { resend: false },
      );
    }
    const wanted = isDefault ? pool.id : listener.default_pool_id === pool.id ? null : listener.default_pool_id;
    if (listener.default_pool_id !== wanted) {
      const listenerId = listener.id;
      await this.change(lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/listeners/${listenerId}`, { listener: { default_pool_id: wanted } }));
    }
    return listener;
  }

  /**
   * The id's one policy on the listener, one rule: the Host header matches
   * one of `hosts` (a regular expression of them, in Octavia's HOST_NAME
   * rule). None: no policy. Other ids' policies on the listener are theirs.
   */
  private async ensureHostPolicy(lb: OctaviaLoadBalancer, listener: OctaviaListener, pool: OctaviaPool, id: string, hosts: string[]): Promise<void> {
    const mine = (await this.policiesOf(listener.id)).filter((p) => p.name === MARK.name(id) || p.redirect_pool_id === pool.id);
    const value = hosts.length > 0 ? `^(${hosts.map((h) => h.replace(/[.]/g, '\\.')).join('|')})$` : null;
    let kept: OctaviaPolicy | null = null;
    for (const policy of mine) {
      if (value && !kept) {
        kept = policy;
        continue;
      }
      await this.change(lb.id, id, () => this.client.delete('load-balancer', `/lbaas/l7policies/${policy.id}`));
    }
    if (!value) return;
    if (!kept) {
      // Made without its rule, which is added next: Zed's Octavia answers a policy created with inline rules with a 500.
      kept = await this.change(
        lb.id,
        id,
        async () =>
          (
            await this.client.post<{ l7policy: OctaviaPolicy }>('load-balancer', '/lbaas/l7policies', {
              l7policy: { listener_id: listener.id, action: 'REDIRECT_TO_POOL', redirect_pool_id: pool.id, name: MARK.name(id) },
            })
          ).l7policy,
        { resend: false },
      );
    } else if (kept.redirect_pool_id !== pool.id) {
      const policyId = kept.id;
      await this.change(lb.id, id, () => this.client.put('load-balancer', `/lbaas/l7policies/${policyId}`, { l7policy: { redirect_pool_id: pool.id } }));
    }
    const { rules } = await this.client.get<{ rules: OctaviaRule[] }>('load-balancer', `/lbaas/l7policies/${kept.id}/rules`);
    const policyId = kept.id;
    for (const extra of rules.slice(1)) await this.change(lb.id, id, () => this.client.delete('load-balancer', `/lbaas/l7policies/${policyId}/rules/${extra.id}`));
    const rule = rules[0];
    if (!rule) {
      await this.change(lb.id, id, () => this.client.post('load-balancer', `/lbaas/l7policies/${policyId}/rules`, { rule: { type: 'HOST_NAME', compare_type: 'REGEX', value } }), {
        resend: false,
      });
    } else if (rule.value !== value || rule.compare_type !== 'REGEX' || rule.type !== 'HOST_NAME') {
      await this.change(lb.id, id, () =>
        this.client.put('load-balancer', `/lbaas/l7policies/${policyId}/rules/${rule.id}`, { rule: { type: 'HOST_NAME', compare_type: 'REGEX', value } }),
      );
    }
  }

  /**
   * One change of a load balancer: sent once it is ACTIVE; returns once
   * Octavia took it (ACTIVE again), so the next change is not refused. A
   * 409 "immutable" (another worker's change under way) is waited out and
   * the change sent again when it is safe to repeat (an update, a delete,
   * a member: Octavia refuses a second of one address and port); a create
   * throws it, for the caller to look again first. With `gone`, a change
   * that takes something away: skipped on a load balancer that is going
   * (its cascade takes everything), and done when what it takes is gone
   * already (404). One in ERROR takes no change at all (lbInError).
   */
  private async change<T>(lbId: string, listenerId: string, send: () => Promise<T>, opts?: { resend?: boolean }): Promise<T>;
  private async change(lbId: string, listenerId: string, send: () => Promise<unknown>, opts: { gone: true }): Promise<void>;
  private async change<T>(lbId: string, listenerId: string, send: () => Promise<T>, { resend = true, gone = false } = {}): Promise<T | void> {
    const deadline = Date.now() + this.waitMs;
    const ready = async () => {
      if (!gone) return (await this.active(lbId, listenerId), true);
      const lb = await this.settled(lbId, listenerId);
      if (lb?.provisioning_status === 'ERROR') throw lbInError(lb, listenerId);
      return lb !== null;
    };
    for (;;) {
      if (!(await ready())) return;
      try {
        const result = await send();
        await ready();
        return result;
      } catch (err) {
        if (gone && err instanceof OpenStackError && err.status === 404) return;
        if (!(err instanceof OpenStackError && err.status === 409 && IMMUTABLE.test(err.message))) throw err;
        if (!resend || Date.now() > deadline) throw err;
        // `gone` waits for no change under way, which may hold again at once: no sending again at once.
        await sleep(this.pollMs);
      }
    }
  }

  /** Waits (bounded) for the load balancer to be ACTIVE; ERROR (lbInError), going or gone is a retryable error. */
  private async active(lbId: string, listenerId: string): Promise<OctaviaLoadBalancer> {
    return until(
      `the load balancer of ${listenerId} to be ACTIVE`,
      async () => {
        const lb = await this.lbById(lbId);
        if (!lb || !live(lb)) {
          // Deleted under this run (the last id of its address deleted, or a racing run that kept another copy): the next run looks again.
          throw new DriverError('retryable', `the load balancer of ${listenerId} is being deleted`);
        }
        if (lb.provisioning_status === 'ERROR') throw lbInError(lb, listenerId);
        return lb.provisioning_status === 'ACTIVE' && lb;
      },
      this.waitMs,
      this.pollMs,
    );
  }

  /** Waits (bounded) until no change of the load balancer is under way (ACTIVE or ERROR): what a delete needs. Null once it is going or gone. */
  private async settled(lbId: string, listenerId: string): Promise<OctaviaLoadBalancer | null> {
    const seen = await until(
      `the load balancer of ${listenerId} to settle`,
      async () => {
        const lb = await this.lbById(lbId);
        return (!lb || !live(lb) || !lb.provisioning_status.startsWith('PENDING_')) && { lb: lb && live(lb) ? lb : null };
      },
      this.waitMs,
      this.pollMs,
    );
    return seen.lb;
  }

  /**
   * Deletes the load balancer once no listener id uses it: the address is
   * given back. Looked at again after every wait, so what another id's run
   * made meanwhile keeps it; a run that made its pool just before the
   * delete finds it going (retryable), and its retry makes another.
   */
  private async giveBack(lbId: string, listenerId: string): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const lb = await this.settled(lbId, listenerId);
      if (!lb) return;
      const { listeners, pools } = await this.look(lb);
      if (listeners.some(live) || pools.some(live)) return;
      try {
        await this.deleteLb(lbId);
        return;
      } catch (err) {
        // A change still under way (its delete answers `Invalid state PENDING_UPDATE of loadbalancer resource …`): waited out.
        if (!(err instanceof OpenStackError && err.status === 409 && (IMMUTABLE.test(err.message) || /PENDING_/.test(err.message))) || Date.now() > deadline) throw err;
        await sleep(this.pollMs);
      }
    }
  }

  private async deleteLb(lbId: string): Promise<void> {
    try {
      await this.client.delete('load-balancer', `/lbaas/loadbalancers/${lbId}`, { query: { cascade: true } });
    } catch (err) {
      // Already on its way out (PENDING_DELETE) or gone: what was asked.
      if (!(err instanceof OpenStackError && (err.status === 404 || (err.status === 409 && /PENDING_DELETE/.test(err.message))))) throw err;
    }
  }

  private async lbById(lbId: string): Promise<OctaviaLoadBalancer | null> {
    return foundOrNull(async () => (await this.client.get<{ loadbalancer: OctaviaLoadBalancer }>('load-balancer', `/lbaas/loadbalancers/${lbId}`)).loadbalancer);
  }

  /** The load balancer of the address (its VIP, name and tag); copies a racing create made are deleted, the oldest stays. */
  private async lbAt(address: string): Promise<OctaviaLoadBalancer | null> {
    const { loadbalancers } = await this.client.get<{ loadbalancers: OctaviaLoadBalancer[] }>('load-balancer', '/lbaas/loadbalancers', {
      query: { tags: MARK.managedTag, vip_address: address },
    });
    const lbs = loadbalancers.filter((lb) => lb.vip_address === address && lb.name === MARK.addressName(address) && (lb.tags ?? []).includes(MARK.addressTag(address)) && live(lb));
    if (lbs.length === 0) return null;
    const kept = keeper(lbs, (lb) => lb.created_at);
    for (const extra of lbs) if (extra.id !== kept.id && !extra.provisioning_status.startsWith('PENDING_')) await this.deleteLb(extra.id);
    return kept;
  }

  /** The load balancer a pool is on, unless it is going. */
  private async lbOfPool(pool: OctaviaPool): Promise<OctaviaLoadBalancer | null> {
    const lb = pool.loadbalancers[0] ? await this.lbById(pool.loadbalancers[0].id) : null;
    return lb && live(lb) ? lb : null;
  }

  private async look(lb: OctaviaLoadBalancer): Promise<Look> {
    const [{ listeners }, { pools }] = await Promise.all([
      this.client.get<{ listeners: OctaviaListener[] }>('load-balancer', '/lbaas/listeners', { query: { loadbalancer_id: lb.id } }),
      this.client.get<{ pools: OctaviaPool[] }>('load-balancer', '/lbaas/pools', { query: { loadbalancer_id: lb.id } }),
    ]);
    return { lb, listeners, pools };
  }

  private async listenerById(listenerId: string): Promise<OctaviaListener | null> {
    return foundOrNull(async () => (await this.client.get<{ listener: OctaviaListener }>('load-balancer', `/lbaas/listeners/${listenerId}`)).listener);
  }

  private async policiesOf(listenerId: string): Promise<OctaviaPolicy[]> {
    return (await this.client.get<{ l7policies: OctaviaPolicy[] }>('load-balancer', '/lbaas/l7policies', { query: { listener_id: listenerId } })).l7policies;
  }

  /** The pools of the listener id (name and tag), on any load balancer; those on their way out only when asked. */
  private async poolsOf(id: string, dying = false): Promise<OctaviaPool[]> {
    const { pools } = await this.client.get<{ pools: OctaviaPool[] }>('load-balancer', '/lbaas/pools', { query: { name: MARK.name(id) } });
    return pools.filter((p) => idOfPool(p) === id && (dying ? p.provisioning_status !== 'DELETED' : live(p)));
  }

  /** The id's pool: the oldest, as every run picks (reconcile deletes the copies). */
  private async poolOf(id: string): Promise<OctaviaPool | null> {
    const pools = await this.poolsOf(id);
    return pools.length > 0 ? keeper(pools, (p) => p.created_at) : null;
  }

  /** The load balancer and pool a backend change needs; a listener that is not there is not_found. */
  private async required(listenerId: string): Promise<{ lb: OctaviaLoadBalancer; pool: OctaviaPool }> {
    const pool = await this.poolOf(listenerId);
    const lb = pool && (await this.lbOfPool(pool));
    if (!pool || !lb) throw new DriverError('not_found', `listener ${listenerId} does not exist`);
    if (lb.provisioning_status === 'ERROR') throw lbInError(lb, listenerId);
    return { lb, pool };
  }

  private async poolMembers(poolId: string): Promise<OctaviaMember[]> {
    return gone404(async () => (await this.client.get<{ members: OctaviaMember[] }>('load-balancer', `/lbaas/pools/${poolId}/members`)).members, `pool ${poolId}`);
  }
}

/** Throws portTaken's refusal when another listener id holds the spec's port on the load balancer (as its pool's tags say). */
function refuseTaken(spec: ListenerSpec, pools: OctaviaPool[]): void {
  for (const pool of pools) {
    const id = idOfPool(pool);
    if (id === null || !live(pool)) continue;
    const other = { id, address: spec.address, port: portOf(pool) ?? 0, protocol: pool.protocol === 'HTTP' ? ('http' as const) : ('tcp' as const), hosts: hostTags(pool) };
    const taken = portTaken(spec, other);
    if (taken) throw taken;
  }
}

/** The listener id a pool is of (its name and tag), or null. */
function idOfPool(pool: OctaviaPool): string | null {
  const tag = (pool.tags ?? []).find((t) => t.startsWith(MARK.idTag('')));
  const id = tag?.slice(MARK.idTag('').length) ?? null;
  return id !== null && pool.name === MARK.name(id) ? id : null;
}

function portOf(pool: OctaviaPool): number | null {
  const tag = (pool.tags ?? []).find((t) => t.startsWith(PORT_TAG));
  return tag ? Number(tag.slice(PORT_TAG.length)) : null;
}

function hostTags(pool: OctaviaPool): string[] {
  return (pool.tags ?? []).filter((t) => t.startsWith(HOST_TAG)).map((t) => t.slice(HOST_TAG.length));
}

function hostsOf(spec: ListenerSpec): string[] {
  return [...new Set(spec.hosts ?? [])].sort();
}

function live(o: { provisioning_status: string }): boolean {
  return o.provisioning_status !== 'PENDING_DELETE' && o.provisioning_status !== 'DELETED';
}

/**
 * Runs `call`; Octavia's 404 for `what` (a pool or member another run
 * deleted between this call's look and its change: a racing run that kept
 * another copy, or a delete) is a retryable error, for the next run to look
 * again, rather than a terminal not_found.
 */
async function gone404<T>(call: () => Promise<T>, what: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof OpenStackError && err.status === 404) throw new DriverError('retryable', `${what} went while it was being changed: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * A load balancer Octavia put in ERROR under a change: retryable, since
 * the next ensureListener on its address deletes it and makes another
 * (`replace`); one that keeps failing ends as its caller's retries do.
 */
function lbInError(lb: OctaviaLoadBalancer, listenerId: string): DriverError {
  return new DriverError(
    'retryable',
    `the Octavia load balancer ${lb.id} of listener ${listenerId} went to ERROR (operating status ${lb.operating_status}): Octavia could not apply a change, and takes none on it now; the next ensure of a listener on ${lb.vip_address} makes another`,
  );
}

function same(m: OctaviaMember, b: BackendSpec): boolean {
  return m.address === b.address && m.protocol_port === b.port;
}

function sameTags(held: string[] | undefined, want: string[]): boolean {
  return [...(held ?? [])].sort().join('\n') === [...want].sort().join('\n');
}

/** Octavia's seconds and counts for a check (it counts whole seconds: a shorter interval is one second). */
function monitorTiming(check: HealthCheckSpec): { delay: number; fall: number; rise: number } {
  const intervalMs = check.intervalMs ?? HEALTH_CHECK_DEFAULTS.intervalMs;
  return { delay: Math.max(1, Math.ceil(intervalMs / 1000)), fall: check.fall ?? HEALTH_CHECK_DEFAULTS.fall, rise: check.rise ?? HEALTH_CHECK_DEFAULTS.rise };
}

/** The check as asked, on the pool: Octavia's whole seconds cannot give back a 250 ms interval. */
function checkTag(check: HealthCheckSpec): string {
  const { kind, path, port, intervalMs, fall, rise } = check;
  return CHECK_TAG + JSON.stringify({ kind, path, port, intervalMs, fall, rise });
}

function checkOf(pool: OctaviaPool): HealthCheckSpec | null {
  const tag = (pool.tags ?? []).find((t) => t.startsWith(CHECK_TAG));
  if (!tag) return null;
  try {
    const parsed = JSON.parse(tag.slice(CHECK_TAG.length)) as HealthCheckSpec;
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined && v !== null)) as unknown as HealthCheckSpec;
  } catch {
    return null;
  }
}

/** Whether the IPv4 `address` is in `cidr`. */
function contains(cidr: string, address: string): boolean {
  const number = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const [base, bits] = cidr.split('/');
  if (!base || base.includes(':') || address.includes(':')) return false;
  const size = 2 ** (32 - Number(bits));
  const offset = number(address) - number(base);
  return offset >= 0 && offset < size;
}
