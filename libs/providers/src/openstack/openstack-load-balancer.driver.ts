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
} from '../load-balancer.driver';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK, until } from './openstack-resources';

interface OctaviaLoadBalancer {
  id: string;
  name: string;
  vip_address: string;
  provisioning_status: string;
  operating_status: string;
  created_at: string;
  tags?: string[];
  listeners: Array<{ id: string }>;
  pools: Array<{ id: string }>;
}

interface OctaviaListener {
  id: string;
  protocol: string;
  protocol_port: number;
  default_pool_id: string | null;
  provisioning_status: string;
  l7policies: Array<{ id: string }>;
  tags?: string[];
}

interface OctaviaPool {
  id: string;
  created_at: string;
  protocol: string;
  healthmonitor_id: string | null;
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
  redirect_pool_id: string | null;
  rules: Array<{ id: string }>;
}

interface OctaviaRule {
  id: string;
  type: string;
  compare_type: string;
  value: string;
}

/** Where the parts of one listener live in Octavia, once made. */
interface Parts {
  lb: OctaviaLoadBalancer;
  listener: OctaviaListener | null;
  pool: OctaviaPool | null;
  /** Pools beside the one kept, which two racing runs left: deleted once the listener no longer needs them. */
  extraPools: OctaviaPool[];
}

export interface OpenStackLoadBalancerOptions {
  /** How long one call waits for Octavia to take a change (PENDING_* → ACTIVE) before it is retried later. */
  waitMs?: number;
  /** Between two looks at a load balancer's provisioning_status. */
  pollMs?: number;
}

/** Octavia counts a member's checks from 1 to 10 (MIN_HM_RETRIES, MAX_HM_RETRIES). */
const MAX_RETRIES = 10;
/** Tag prefixes on Octavia's objects: what the seam holds that Octavia has no field for. */
const HOST_TAG = 'stratus-host:';
const CHECK_TAG = 'stratus-check:';
/** A backend's weight while it takes connections; 0 is Octavia's drain (no new connections, open ones go on). */
const ACTIVE_WEIGHT = 1;
/** Answers of Octavia that mean "busy now, try again once it is ACTIVE": `… is immutable and cannot be updated`. */
const IMMUTABLE = /immutable/i;
/** Octavia's 409 for an object another run made first: `… is already using …`, `… already has a health monitor`. */
const ALREADY = /already/i;

/**
 * Load balancers on Octavia (v2). One Octavia load balancer per listener
 * id, named after it and tagged with it (MARK), so a repeat looks before it
 * creates and a retried job never makes two; copies two racing runs made
 * are deleted, the oldest stays. It holds one Octavia listener (TCP or
 * HTTP, the spec's port), one pool (ROUND_ROBIN) the listener's default
 * pool, a health monitor from `check`, and a member per backend.
 *
 * The VIP is `spec.address`: on the Neutron port that holds it (the port
 * the network driver made for the resource) when there is one, else on the
 * project's subnet that contains it, Octavia making the port. An HTTP
 * listener's names are one L7 policy (a Host header rule) that sends them
 * to the pool; with ANY_HOST among them the pool is the default and takes
 * every name. Octavia gives an address to one load balancer, so listeners
 * do not share an address here (proxy hosts on one HTTP listener, gateway
 * routes on one host): a second listener on a held address is refused as
 * invalid, rather than left to the cloud's port conflict.
 *
 * Octavia takes one change at a time per load balancer (PENDING_UPDATE
 * until the driver behind it is done, a 409 "immutable" meanwhile): every
 * change waits for ACTIVE before it is sent, and a 409 that still comes
 * (another worker's change) is waited out: an update, a delete or a member
 * is sent again, a create is looked for first. A load balancer in ERROR
 * is a terminal error that says so; deleting it still works.
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

  constructor(
    private readonly client: OpenStackClient,
    opts: OpenStackLoadBalancerOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? 180_000;
    this.pollMs = opts.pollMs ?? 500;
  }

  async ensureListener(spec: ListenerSpec): Promise<void> {
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

    let lb = await this.lbOf(spec.id);
    if (!lb || lb.vip_address !== spec.address) {
      // Before anything is made or moved: a refusal leaves the listener as it was.
      const holder = await this.holderOf(spec.address, spec.id);
      if (holder !== null) {
        throw new DriverError(
          'invalid',
          `address ${spec.address} is the VIP of listener ${holder}'s Octavia load balancer: Octavia gives an address to one load balancer, and this provider makes one per listener`,
        );
      }
    }
    if (!lb) {
      await this.client.post('load-balancer', '/lbaas/loadbalancers', {
        loadbalancer: { name: MARK.name(spec.id), description: `stratus listener ${spec.id}`, tags: [MARK.managedTag, MARK.idTag(spec.id)], ...(await this.vip(spec.address)) },
      });
      // Looked up again rather than taken from the answer: two runs that raced both see the one that stays.
      lb = await this.lbOf(spec.id);
      if (!lb) throw new DriverError('retryable', `the load balancer of ${spec.id} is not listed yet`);
    }
    if (lb.vip_address !== spec.address) {
      // Octavia cannot move a VIP: the listener's address changed, so its load balancer is made again (its members with it).
      // An address no port or subnet holds is refused before the old load balancer goes.
      await this.vip(spec.address);
      const members = await this.members(lb);
      await this.deleteListener(spec.id);
      await until(`the old load balancer of ${spec.id} to go`, async () => (await this.lbsOf(spec.id, true)).length === 0, this.waitMs, this.pollMs);
      await this.ensureListener(spec);
      for (const m of members) await this.addBackend(spec.id, { address: m.address, port: m.protocol_port });
      for (const m of members) if (m.weight === 0) await this.drainBackend(spec.id, { address: m.address, port: m.protocol_port });
      return;
    }
    // A change another run made meanwhile (Octavia's 409: busy, or "already" there) is seen by a fresh look, not sent twice.
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      try {
        await this.reconcile(lb.id, spec);
        return;
      } catch (err) {
        if (!(err instanceof OpenStackError && err.status === 409 && (IMMUTABLE.test(err.message) || ALREADY.test(err.message))) || Date.now() > deadline) throw err;
      }
    }
  }

  /** Brings the load balancer's listener, pool, monitor and members to `spec`, from a fresh look. */
  private async reconcile(lbId: string, spec: ListenerSpec): Promise<void> {
    const parts = await this.parts(await this.active(lbId, spec.id));
    const pool = await this.ensurePool(parts, spec);
    await this.ensureMonitor(parts.lb, pool, spec);
    await this.ensureOctaviaListener(parts, pool, spec);
    for (const extra of parts.extraPools) await this.change(parts.lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/pools/${extra.id}`));
    // The check's port is the members' monitor_port: those there already follow it.
    for (const m of await this.poolMembers(pool.id)) {
      if ((m.monitor_port ?? null) !== (spec.check.port ?? null)) {
        await this.change(parts.lb.id, spec.id, () =>
          this.client.put('load-balancer', `/lbaas/pools/${pool.id}/members/${m.id}`, { member: { monitor_port: spec.check.port ?? null } }),
        );
      }
    }
  }

  async deleteListener(id: string): Promise<void> {
    for (const lb of await this.lbsOf(id)) {
      // A load balancer being changed refuses a delete (409): it is deleted once it is ACTIVE or in ERROR.
      await this.settled(lb.id, id);
      await this.deleteLb(lb.id);
    }
  }

  async addBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    const invalid = invalidBackend(backend);
    if (invalid) throw new DriverError('invalid', invalid);
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
      if (theirs.weight !== ACTIVE_WEIGHT) await this.addBackend(listenerId, backend);
    }
  }

  async drainBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    const { lb, pool } = await this.required(listenerId);
    const member = (await this.poolMembers(pool.id)).find((m) => same(m, backend));
    if (!member) throw new DriverError('not_found', `listener ${listenerId} has no backend ${backend.address}:${backend.port}`);
    if (member.weight === 0) return;
    await this.change(lb.id, listenerId, () => this.client.put('load-balancer', `/lbaas/pools/${pool.id}/members/${member.id}`, { member: { weight: 0 } }));
  }

  async removeBackend(listenerId: string, backend: BackendSpec): Promise<void> {
    const lb = await this.lbOf(listenerId);
    const pool = lb && (await this.parts(lb)).pool;
    if (!lb || !pool) return;
    const member = (await this.poolMembers(pool.id)).find((m) => same(m, backend));
    if (!member || member.provisioning_status === 'PENDING_DELETE') return;
    await this.change(lb.id, listenerId, () => this.client.delete('load-balancer', `/lbaas/pools/${pool.id}/members/${member.id}`));
  }

  async observe(id: string): Promise<ObservedListener | null> {
    const lb = await this.lbOf(id);
    if (!lb) return null;
    const { listener, pool } = await this.parts(lb);
    const members = pool ? await this.poolMembers(pool.id) : [];
    const backends: ObservedBackend[] = members.map((m) => ({
      address: m.address,
      port: m.protocol_port,
      state: m.provisioning_status === 'PENDING_DELETE' ? 'removing' : m.weight === 0 ? 'draining' : 'active',
      health: m.operating_status === 'ONLINE' ? 'up' : m.operating_status === 'ERROR' ? 'down' : 'unknown',
      connections: 0,
    }));
    let status: string;
    if (lb.provisioning_status === 'ERROR') status = `the Octavia load balancer ${lb.id} is in ERROR`;
    else if (listener?.provisioning_status === 'ERROR') status = `the Octavia listener ${listener.id} is in ERROR`;
    else if (!listener || !pool || lb.provisioning_status === 'PENDING_CREATE' || listener.provisioning_status === 'PENDING_CREATE') status = 'pending';
    else status = 'ok';
    const check = pool && checkOf(pool);
    const spec: ListenerSpec | undefined =
      listener && check
        ? {
            id,
            address: lb.vip_address,
            port: listener.protocol_port,
            protocol: listener.protocol === 'HTTP' ? 'http' : 'tcp',
            ...(listener.protocol === 'HTTP' ? { hosts: (listener.tags ?? []).filter((t) => t.startsWith(HOST_TAG)).map((t) => t.slice(HOST_TAG.length)) } : {}),
            check,
          }
        : undefined;
    return { status, backends, ...(spec ? { spec } : {}) };
  }

  async listenerIds(prefix: string): Promise<string[]> {
    const { loadbalancers } = await this.client.get<{ loadbalancers: OctaviaLoadBalancer[] }>('load-balancer', '/lbaas/loadbalancers', {
      query: { tags: MARK.managedTag },
    });
    const ids = new Set<string>();
    for (const lb of loadbalancers) {
      const id = idOf(lb);
      if (id !== null && live(lb) && id.startsWith(prefix)) ids.add(id);
    }
    return [...ids].sort();
  }

  /** The listener id other than `id` whose load balancer has `address` as its VIP, or null. */
  private async holderOf(address: string, id: string): Promise<string | null> {
    const { loadbalancers } = await this.client.get<{ loadbalancers: OctaviaLoadBalancer[] }>('load-balancer', '/lbaas/loadbalancers', {
      query: { tags: MARK.managedTag, vip_address: address },
    });
    const held = loadbalancers.find((lb) => lb.vip_address === address && live(lb) && idOf(lb) !== null && idOf(lb) !== id);
    return held ? idOf(held) : null;
  }

  /** The VIP fields of a new load balancer on `address`: the Neutron port that holds it, else the subnet that contains it. */
  private async vip(address: string): Promise<Record<string, string>> {
    const { ports } = await this.client.get<{ ports: Array<{ id: string }> }>('network', '/ports', { query: { fixed_ips: `ip_address=${address}` } });
    if (ports.length === 1) return { vip_port_id: ports[0].id, vip_address: address };
    const { subnets } = await this.client.get<{ subnets: Array<{ id: string; cidr: string; ip_version: number }> }>('network', '/subnets');
    const subnet = subnets.find((s) => s.ip_version === 4 && contains(s.cidr, address));
    if (!subnet) throw new DriverError('invalid', `no Neutron port holds ${address} and no subnet of the project contains it: a load balancer cannot listen there`);
    return { vip_subnet_id: subnet.id, vip_address: address };
  }

  /** The pool of the load balancer, made when missing; one whose protocol no longer fits the listener is made again with its members. */
  private async ensurePool(parts: Parts, spec: ListenerSpec): Promise<OctaviaPool> {
    const protocol = spec.protocol === 'http' ? 'HTTP' : 'TCP';
    const tags = [MARK.managedTag, checkTag(spec.check)];
    let pool = parts.pool;
    if (pool && pool.protocol !== protocol) {
      const members = await this.poolMembers(pool.id);
      if (parts.listener) await this.change(parts.lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/listeners/${parts.listener!.id}`));
      parts.listener = null;
      const old = pool.id;
      await this.change(parts.lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/pools/${old}`));
      pool = await this.makePool(parts.lb, spec, protocol, tags);
      for (const m of members) {
        const member = { address: m.address, protocol_port: m.protocol_port, weight: m.weight, name: `${m.address}:${m.protocol_port}`, monitor_port: spec.check.port };
        await this.change(parts.lb.id, spec.id, () => this.client.post('load-balancer', `/lbaas/pools/${pool!.id}/members`, { member }));
      }
    } else if (!pool) {
      pool = await this.makePool(parts.lb, spec, protocol, tags);
    } else if (!sameTags(pool.tags, tags)) {
      const id = pool.id;
      await this.change(parts.lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/pools/${id}`, { pool: { tags } }));
    }
    parts.pool = pool;
    return pool;
  }

  private async makePool(lb: OctaviaLoadBalancer, spec: ListenerSpec, protocol: string, tags: string[]): Promise<OctaviaPool> {
    return this.change(
      lb.id,
      spec.id,
      async () => {
        const { pool } = await this.client.post<{ pool: OctaviaPool }>('load-balancer', '/lbaas/pools', {
          pool: { loadbalancer_id: lb.id, protocol, lb_algorithm: 'ROUND_ROBIN', name: MARK.name(spec.id), tags },
        });
        return pool;
      },
      { resend: false },
    );
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
   * The Octavia listener: protocol and port are fixed in Octavia, so a
   * change of either is a new listener (the pool and its members stay).
   * HTTP names: ANY_HOST makes the pool the default; otherwise one L7
   * policy sends the named Hosts to it, and Octavia answers the rest.
   */
  private async ensureOctaviaListener(parts: Parts, pool: OctaviaPool, spec: ListenerSpec): Promise<void> {
    const { lb } = parts;
    const protocol = spec.protocol === 'http' ? 'HTTP' : 'TCP';
    const hosts = spec.protocol === 'http' ? [...new Set(spec.hosts ?? [])].sort() : [];
    const byHost = spec.protocol === 'http' && !hosts.includes(ANY_HOST);
    const tags = [MARK.managedTag, ...hosts.map((h) => HOST_TAG + h)];
    const defaultPool = byHost ? null : pool.id;
    let listener = parts.listener;
    if (listener && (listener.protocol !== protocol || listener.protocol_port !== spec.port)) {
      const old = listener.id;
      await this.change(lb.id, spec.id, () => this.client.delete('load-balancer', `/lbaas/listeners/${old}`));
      listener = null;
    }
    if (!listener) {
      listener = await this.change(
        lb.id,
        spec.id,
        async () => {
          const made = await this.client.post<{ listener: OctaviaListener }>('load-balancer', '/lbaas/listeners', {
            listener: { loadbalancer_id: lb.id, protocol, protocol_port: spec.port, name: MARK.name(spec.id), default_pool_id: defaultPool, tags },
          });
          return made.listener;
        },
        { resend: false },
      );
    } else if (listener.default_pool_id !== defaultPool || !sameTags(listener.tags, tags)) {
      const id = listener.id;
      await this.change(lb.id, spec.id, () => this.client.put('load-balancer', `/lbaas/listeners/${id}`, { listener: { default_pool_id: defaultPool, tags } }));
    }
    await this.ensureHostPolicy(lb, listener, pool, spec.id, byHost ? hosts : []);
  }

  /** One policy, one rule: the Host header matches one of `hosts` (a regular expression of them, in Octavia's HOST_NAME rule). None: no policy. */
  private async ensureHostPolicy(lb: OctaviaLoadBalancer, listener: OctaviaListener, pool: OctaviaPool, id: string, hosts: string[]): Promise<void> {
    const { l7policies } = await this.client.get<{ l7policies: OctaviaPolicy[] }>('load-balancer', '/lbaas/l7policies', { query: { listener_id: listener.id } });
    const value = hosts.length > 0 ? `^(${hosts.map((h) => h.replace(/[.]/g, '\\.')).join('|')})$` : null;
    let kept: OctaviaPolicy | null = null;
    for (const policy of l7policies) {
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
              l7policy: { listener_id: listener.id, action: 'REDIRECT_TO_POOL', redirect_pool_id: pool.id, position: 1, name: MARK.name(id) },
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
   * throws it, for the caller to look again first.
   */
  private async change<T>(lbId: string, listenerId: string, send: () => Promise<T>, { resend = true } = {}): Promise<T> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      await this.active(lbId, listenerId);
      try {
        const result = await send();
        await this.active(lbId, listenerId);
        return result;
      } catch (err) {
        if (!(err instanceof OpenStackError && err.status === 409 && IMMUTABLE.test(err.message))) throw err;
        if (!resend || Date.now() > deadline) throw err;
      }
    }
  }

  /** Waits (bounded) for the load balancer to be ACTIVE; ERROR is a terminal error, going or gone a retryable one. */
  private async active(lbId: string, listenerId: string): Promise<OctaviaLoadBalancer> {
    return until(
      `the load balancer of ${listenerId} to be ACTIVE`,
      async () => {
        const lb = await this.lbById(lbId);
        if (!lb || lb.provisioning_status === 'DELETED' || lb.provisioning_status === 'PENDING_DELETE') {
          // Deleted under this run (a delete, or a racing run that kept another copy): the next run looks again.
          throw new DriverError('retryable', `the load balancer of ${listenerId} is being deleted`);
        }
        if (lb.provisioning_status === 'ERROR') throw lbInError(lb, listenerId);
        return lb.provisioning_status === 'ACTIVE' && lb;
      },
      this.waitMs,
      this.pollMs,
    );
  }

  /** Waits (bounded) until no change of the load balancer is under way (ACTIVE or ERROR): what a delete needs. */
  private async settled(lbId: string, listenerId: string): Promise<void> {
    await until(
      `the load balancer of ${listenerId} to settle`,
      async () => {
        const lb = await this.lbById(lbId);
        return !lb || !lb.provisioning_status.startsWith('PENDING_') || lb.provisioning_status === 'PENDING_DELETE';
      },
      this.waitMs,
      this.pollMs,
    );
  }

  private async deleteLb(lbId: string): Promise<void> {
    try {
      await this.client.delete('load-balancer', `/lbaas/loadbalancers/${lbId}`, { query: { cascade: true } });
    } catch (err) {
      // Already on its way out (PENDING_DELETE): what was asked.
      if (!(err instanceof OpenStackError && err.status === 409 && /PENDING_DELETE/.test(err.message))) throw err;
    }
  }

  private async lbById(lbId: string): Promise<OctaviaLoadBalancer | null> {
    try {
      return (await this.client.get<{ loadbalancer: OctaviaLoadBalancer }>('load-balancer', `/lbaas/loadbalancers/${lbId}`)).loadbalancer;
    } catch (err) {
      if (err instanceof OpenStackError && err.status === 404) return null;
      throw err;
    }
  }

  /** The load balancers of the listener id (name and tag); those on their way out only when asked. */
  private async lbsOf(id: string, dying = false): Promise<OctaviaLoadBalancer[]> {
    const { loadbalancers } = await this.client.get<{ loadbalancers: OctaviaLoadBalancer[] }>('load-balancer', '/lbaas/loadbalancers', {
      query: { name: MARK.name(id) },
    });
    return loadbalancers.filter((lb) => idOf(lb) === id && (dying ? lb.provisioning_status !== 'DELETED' : live(lb)));
  }

  /** The load balancer of the listener id; copies a racing repeat made are deleted, the oldest stays. */
  private async lbOf(id: string): Promise<OctaviaLoadBalancer | null> {
    const lbs = await this.lbsOf(id);
    if (lbs.length === 0) return null;
    const kept = keeper(lbs, (lb) => lb.created_at);
    for (const extra of lbs) if (extra.id !== kept.id && !extra.provisioning_status.startsWith('PENDING_')) await this.deleteLb(extra.id);
    return kept;
  }

  /** Its Octavia listener and pool (the first of each: the driver makes one). */
  private async parts(lb: OctaviaLoadBalancer): Promise<Parts> {
    const [{ listeners }, { pools }] = await Promise.all([
      this.client.get<{ listeners: OctaviaListener[] }>('load-balancer', '/lbaas/listeners', { query: { loadbalancer_id: lb.id } }),
      this.client.get<{ pools: OctaviaPool[] }>('load-balancer', '/lbaas/pools', { query: { loadbalancer_id: lb.id } }),
    ]);
    return {
      lb,
      listener: listeners[0] ?? null,
      pool: pools.length > 0 ? keeper(pools, (p) => p.created_at) : null,
      extraPools: pools.filter((p) => pools.length > 1 && p.id !== keeper(pools, (k) => k.created_at).id),
    };
  }

  /** The load balancer and pool a backend change needs; a listener that is not there is not_found, one still being made retryable. */
  private async required(listenerId: string): Promise<{ lb: OctaviaLoadBalancer; pool: OctaviaPool }> {
    const lb = await this.lbOf(listenerId);
    if (!lb) throw new DriverError('not_found', `listener ${listenerId} does not exist`);
    if (lb.provisioning_status === 'ERROR') throw lbInError(lb, listenerId);
    const { pool } = await this.parts(lb);
    if (!pool) throw new DriverError('retryable', `listener ${listenerId} is still being made`);
    return { lb, pool };
  }

  private async members(lb: OctaviaLoadBalancer): Promise<OctaviaMember[]> {
    const { pool } = await this.parts(lb);
    return pool ? this.poolMembers(pool.id) : [];
  }

  private async poolMembers(poolId: string): Promise<OctaviaMember[]> {
    const { members } = await this.client.get<{ members: OctaviaMember[] }>('load-balancer', `/lbaas/pools/${poolId}/members`);
    return members;
  }
}

function idOf(lb: OctaviaLoadBalancer): string | null {
  const tag = (lb.tags ?? []).find((t) => t.startsWith(MARK.idTag('')));
  const id = tag?.slice(MARK.idTag('').length) ?? null;
  return id !== null && lb.name === MARK.name(id) ? id : null;
}

function live(lb: OctaviaLoadBalancer): boolean {
  return lb.provisioning_status !== 'PENDING_DELETE' && lb.provisioning_status !== 'DELETED';
}

function lbInError(lb: OctaviaLoadBalancer, listenerId: string): DriverError {
  return new DriverError(
    'invalid',
    `the Octavia load balancer ${lb.id} of listener ${listenerId} went to ERROR (operating status ${lb.operating_status}): Octavia could not apply a change; delete the listener to make it again`,
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
