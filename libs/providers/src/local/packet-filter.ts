import { execFile } from 'node:child_process';
import * as ipaddr from 'ipaddr.js';

/** One rule of a security group, as the catalog holds it. */
export interface FilterRule {
  direction: 'ingress' | 'egress';
  protocol: 'tcp' | 'udp' | 'icmp' | 'all';
  port?: number;
  /** Absent: an egress rule means anywhere, an ingress rule the network itself (the pool). */
  cidr?: string;
  /** The peer must be a member of this group (matched by who it is, never by an address it chose). */
  remote_group_id?: string;
}

/** Something on a pool address whose groups decide what reaches it. */
export interface FilterMember {
  /** Instance id or database server key: for comments and error messages only. */
  key: string;
  address: string;
  /** The uid its processes run as when it is an instance with a user of its own; null otherwise. */
  uid: number | null;
  groupIds: string[];
}

/** A listener of the control plane that instances may call (the public API, the edge). */
export interface PublicEndpoint {
  /** null: whatever local address the port is reached on (a listener on the wildcard). */
  address: string | null;
  ports: { from: number; to: number };
}

/**
 * A port of a pool address that database servers open to one another: an
 * ha member's replication port, its Patroni REST API, its consensus store.
 * `private` ones are reached by nothing else but the control plane.
 */
export interface ServerPeer {
  address: string;
  port: number;
  private: boolean;
}

/** The whole table of one installation: render it from this, load it in one go. */
export interface FilterSpec {
  table: string;
  /** The loopback pool (IPv4 CIDR) instances and database servers get addresses from. */
  pool: string;
  /** Primary group of every instance user: a sender in it is an instance even before its uid is known. */
  instancesGid: number | null;
  /**
   * Accounts that run tenants' code without being instances: the database
   * servers' user (a tenant given `superuser` runs programs as it). They get
   * the boundary too, and no egress rules of their own.
   */
  confinedUids?: number[];
  /** Senders that reach every pool address: root, the worker, the edge's HAProxy (probes, routing). */
  controlPlaneUids: number[];
  members: FilterMember[];
  groups: Record<string, FilterRule[]>;
  publicEndpoints: PublicEndpoint[];
  /** What the confined uids may open in the pool (ServerPeer); everything else of the pool stays closed to them. */
  serverPeers?: ServerPeer[];
}

export interface RenderedFilter {
  text: string;
  /** Rules left out because they were malformed: such a rule grants nothing. */
  skipped: string[];
  /** Where a new member's elements go in the table loaded: what `PacketFilter.admit` needs. */
  layout: FilterLayout;
}

/**
 * The named sets and chains of a loaded table, so one member can be let in
 * with elements alone (PacketFilter.admit), as a whole load would have it.
 */
export interface FilterLayout {
  /** The number of each combination of groups in the table (its chains `ingress_<n>`, `egress_<n>`), by `groupsKey`. */
  combos: Record<string, number>;
  /** The number of each group some rule names as its peers (sets `group_<n>_uids`, `group_<n>_addrs`). */
  remoteGroups: Record<string, number>;
  /** The IPv4 source ranges of ingress rules, each with the set of the instances' uids whose address is in it. */
  uidsByCidr: Array<{ cidr: string; set: string }>;
  controlPlaneUids: number[];
}

/** One name for a combination of groups, whatever their order. */
export function groupsKey(groupIds: string[]): string {
  return [...new Set(groupIds)].sort().join(' ');
}

const REJECT = ['meta l4proto tcp reject with tcp reset', 'reject'];

/**
 * The nft script that replaces the installation's table atomically (`add`
 * makes the `delete` safe on a first load; `nft -f` applies the file as one
 * transaction, so no packet ever sees half a table).
 *
 * Only new connections are judged: replies and established flows pass.
 * Everything is judged in the output hook, where the sending socket's uid
 * and gid are still known (loopback traffic leaves by output and comes back
 * by input). A connection from an instance first passes its own egress
 * rules and the boundary, then, if it goes to a pool address, the ingress
 * rules of what lives there.
 */
export function renderFilter(spec: FilterSpec): RenderedFilter {
  const skipped: string[] = [];
  const pool = parseCidr(spec.pool);
  if (!pool || pool[0].kind() !== 'ipv4') throw new Error(`address pool ${spec.pool} is not an IPv4 CIDR`);
  const poolText = cidrText(pool);
  const seen = new Set<string>();
  const members = spec.members
    .map((m) => ({ ...m }))
    .filter((m) => {
      const ok = ipaddr.isValid(m.address) && ipaddr.parse(m.address).kind() === 'ipv4' && !seen.has(m.address);
      if (!ok) skipped.push(`${m.key}: address ${m.address} is not IPv4 or held twice`);
      seen.add(m.address);
      return ok;
    });
  // A uid is only an identity when it is one instance's alone.
  const uidCount = new Map<number, number>();
  for (const m of members) if (m.uid !== null) uidCount.set(m.uid, (uidCount.get(m.uid) ?? 0) + 1);
  for (const m of members) {
    if (m.uid !== null && (uidCount.get(m.uid)! > 1 || spec.controlPlaneUids.includes(m.uid))) {
      skipped.push(`${m.key}: uid ${m.uid} is not its own, its processes are judged as any sender`);
      m.uid = null;
    }
  }
  const instances = members.filter((m) => m.uid !== null) as Array<FilterMember & { uid: number }>;
  const skip = (group: string, rule: FilterRule) => {
    const what = `${group}: ${describe(rule)}`;
    if (!skipped.includes(what)) skipped.push(what);
  };

  // Chains are per combination of groups, not per member, and peers are
  // named sets: the table grows with members, not with members squared.
  const combos = new Map<string, string[]>();
  const comboOf = (m: FilterMember) => {
    const groupIds = [...new Set(m.groupIds)].sort();
    const key = groupsKey(groupIds);
    if (!combos.has(key)) combos.set(key, groupIds);
    return [...combos.keys()].indexOf(key);
  };
  const remoteGroups: string[] = [];
  const remoteSet = (groupId: string, of: 'uids' | 'addrs') => {
    if (!remoteGroups.includes(groupId)) remoteGroups.push(groupId);
    return `@group_${remoteGroups.indexOf(groupId)}_${of}`;
  };
  const rulesOf = (groupIds: string[], direction: FilterRule['direction']) =>
    groupIds.flatMap((g) => (spec.groups[g] ?? []).filter((r) => r.direction === direction).map((rule) => ({ group: g, rule })));
  // The instances whose own address is in a rule's source range: a named set per range, so an admitted instance joins it.
  const uidsByCidr: Array<{ cidr: string; set: string; uids: number[] }> = [];
  const instanceUidsIn = (cidr: [ipaddr.IPv4 | ipaddr.IPv6, number]): string | null => {
    if (cidr[0].kind() !== 'ipv4') return null;
    const text = cidrText(cidr);
    let named = uidsByCidr.find((c) => c.cidr === text);
    if (!named) {
      const inside = instances.filter((i) => ipaddr.IPv4.parse(i.address).match(cidr as [ipaddr.IPv4, number]));
      named = { cidr: text, set: `cidr_${uidsByCidr.length}_uids`, uids: inside.map((i) => i.uid) };
      uidsByCidr.push(named);
    }
    return `@${named.set}`;
  };

  const chains: string[] = [];
  const egressOf = new Map(instances.map((i) => [i.uid, comboOf(i)]));
  const ingressOf = new Map(members.map((m) => [m.address, comboOf(m)]));

  // --- output: egress of instances, then ingress of pool addresses
  // A uid names an instance of this installation only together with its
  // group: uids are reused once an instance user is removed, possibly by
  // another installation on the host, whose instances have a group of their own.
  const ours = spec.instancesGid !== null ? `meta skgid ${spec.instancesGid} ` : '';
  const outputRules = ['ct state != new accept', `${ours}meta skuid . ip daddr @instance_self accept`];
  // A named map, so an instance's egress can be added without loading the table again.
  outputRules.push(`${ours}meta skuid vmap @egress`);
  // An instance whose uid is not in the table yet (it is being built) still gets the boundary.
  if (spec.instancesGid !== null) outputRules.push(`meta skgid ${spec.instancesGid} jump boundary`);
  const confined = (spec.confinedUids ?? []).filter((uid) => !spec.controlPlaneUids.includes(uid));
  const peers = (spec.serverPeers ?? []).filter((p) => ipaddr.IPv4.isValidFourPartDecimal(p.address) && Number.isInteger(p.port) && p.port > 0 && p.port < 65536);
  if (confined.length && peers.length) outputRules.push(`meta skuid { ${[...new Set(confined)].join(', ')} } ip daddr . tcp dport @server_peers accept`);
  if (confined.length) outputRules.push(`meta skuid { ${[...new Set(confined)].join(', ')} } jump servers`);
  outputRules.push(`ip daddr ${poolText} jump ingress`);
  chains.push(...chain('output', outputRules, 'type filter hook output priority filter; policy accept;'));

  // --- the fixed boundary: no local address outside the pool but the public endpoints
  const boundary = [`ip daddr ${poolText} return`];
  for (const e of spec.publicEndpoints) {
    const ports = e.ports.from === e.ports.to ? `${e.ports.from}` : `${e.ports.from}-${e.ports.to}`;
    if (e.address === null) boundary.push(`tcp dport ${ports} return`);
    else if (ipaddr.isValid(e.address)) boundary.push(`${family(e.address)} daddr ${e.address} tcp dport ${ports} return`);
  }
  boundary.push(...REJECT.map((r) => `fib daddr type { local, broadcast, multicast } ${r}`));
  chains.push(...chain('boundary', boundary));

  // --- database servers: nothing of their own to open but what an engine
  // sends itself (PostgreSQL 14's statistics collector: UDP on localhost to
  // its own socket). Not the pool, where they would choose their source
  // address; and the boundary.
  chains.push(
    ...chain('servers', [
      'meta l4proto udp ip daddr 127.0.0.1 return',
      'meta l4proto udp ip6 daddr ::1 return',
      ...REJECT.map((r) => `ip daddr ${poolText} ${r}`),
      'jump boundary',
    ]),
  );

  // --- ingress: the control plane, else the rules of whatever holds the address
  const ingress = [];
  if (spec.controlPlaneUids.length) ingress.push(`meta skuid { ${[...new Set(spec.controlPlaneUids)].join(', ')} } accept`);
  // What servers open to one another and nobody else may (Patroni's REST API, a consensus store), whatever the groups say.
  if (peers.some((p) => p.private)) ingress.push(...REJECT.map((r) => `ip daddr . tcp dport @server_private ${r}`));
  // A named map, so one address can be let in without loading the table again (PacketFilter.admit).
  ingress.push('ip daddr vmap @members');
  ingress.push(...REJECT);
  chains.push(...chain('ingress', ingress));

  // A sender that is no instance is judged by its source address; an instance never is.
  const notInstance = [spec.instancesGid !== null ? `meta skgid != ${spec.instancesGid}` : '', 'meta skuid != @instance_uids'].filter(Boolean).join(' ');
  // Every combination gets its egress chain, used or not: an instance admitted later may have it.
  [...combos.values()].forEach((groupIds, k) => {
    const egress = ['jump boundary'];
    for (const { group, rule } of rulesOf(groupIds, 'egress')) {
      const proto = protocolMatch(rule);
      const cidr = rule.cidr === undefined ? null : parseCidr(rule.cidr);
      if (proto === null || (rule.cidr !== undefined && !cidr)) skip(group, rule);
      else if (rule.remote_group_id !== undefined) egress.push(join(`ip daddr ${remoteSet(rule.remote_group_id, 'addrs')}`, proto, 'return'));
      else if (cidr) egress.push(join(`${family(cidr[0])} daddr ${cidrText(cidr)}`, proto, 'return'));
      else egress.push(join(proto, 'return'));
    }
    chains.push(...chain(`egress_${k}`, [...egress, ...REJECT]));
    const rules: string[] = [];
    for (const { group, rule } of rulesOf(groupIds, 'ingress')) {
      const proto = protocolMatch(rule);
      const cidr = rule.cidr === undefined ? pool : parseCidr(rule.cidr);
      if (proto === null || !cidr) {
        skip(group, rule);
      } else if (rule.remote_group_id !== undefined) {
        rules.push(join(`${ours}meta skuid ${remoteSet(rule.remote_group_id, 'uids')}`, proto, 'accept'));
      } else {
        const uids = instanceUidsIn(cidr);
        if (uids) rules.push(join(`${ours}meta skuid ${uids}`, proto, 'accept'));
        rules.push(join(notInstance, `${family(cidr[0])} saddr ${cidrText(cidr)}`, proto, 'accept'));
      }
    }
    chains.push(...chain(`ingress_${k}`, [...rules, ...REJECT], `comment "groups ${groupIds.join(' ').replace(/[^A-Za-z0-9_. -]/g, '')}"`));
  });

  const out: string[] = [`add table inet ${spec.table}`, `delete table inet ${spec.table}`, `table inet ${spec.table} {`];
  out.push(
    ...set(
      'instance_uids',
      'uid',
      instances.map((i) => `${i.uid}`),
    ),
  );
  out.push(
    ...set(
      'instance_self',
      'uid . ipv4_addr',
      instances.map((i) => `${i.uid} . ${i.address}`),
    ),
  );
  const peer = (p: ServerPeer) => `${p.address} . ${p.port}`;
  out.push(...set('server_peers', 'ipv4_addr . inet_service', [...new Set(peers.map(peer))]));
  out.push(...set('server_private', 'ipv4_addr . inet_service', [...new Set(peers.filter((p) => p.private).map(peer))]));
  out.push(
    ...set(
      'members',
      'ipv4_addr : verdict',
      [...ingressOf].map(([address, k]) => `${address} : jump ingress_${k}`),
      'map',
    ),
  );
  out.push(
    ...set(
      'egress',
      'uid : verdict',
      [...egressOf].map(([uid, k]) => `${uid} : jump egress_${k}`),
      'map',
    ),
  );
  for (const c of uidsByCidr) out.push(...set(c.set, 'uid', [...new Set(c.uids)].map(String)));
  remoteGroups.forEach((groupId, n) => {
    const inGroup = members.filter((m) => m.groupIds.includes(groupId));
    out.push(
      ...set(
        `group_${n}_uids`,
        'uid',
        inGroup.filter((m) => m.uid !== null).map((m) => `${m.uid}`),
      ),
    );
    out.push(
      ...set(
        `group_${n}_addrs`,
        'ipv4_addr',
        inGroup.map((m) => m.address),
      ),
    );
  });
  out.push(...chains);

  // --- input: a pool address never reaches a host service listening on the wildcard
  out.push(
    ...chain(
      'input',
      [
        `ip daddr ${poolText} tcp flags & (syn | ack) == syn socket wildcard 1 reject with tcp reset`,
        `ip daddr ${poolText} meta l4proto udp ct state new socket wildcard 1 reject`,
      ],
      'type filter hook input priority filter; policy accept;',
    ),
  );
  out.push('}');
  const layout: FilterLayout = {
    combos: Object.fromEntries([...combos.keys()].map((key, k) => [key, k])),
    remoteGroups: Object.fromEntries(remoteGroups.map((groupId, n) => [groupId, n])),
    uidsByCidr: uidsByCidr.map(({ cidr, set }) => ({ cidr, set })),
    controlPlaneUids: [...new Set(spec.controlPlaneUids)],
  };
  return { text: out.join('\n') + '\n', skipped, layout };
}

/** The script that removes the table (nothing left if it is already gone). */
export function renderRemoval(table: string): string {
  return `add table inet ${table}\ndelete table inet ${table}\n`;
}

/**
 * The nft script that adds one member to a loaded table as a whole load of
 * the table with it would have it (one transaction); null where it cannot:
 * an address that is not IPv4, a combination of groups the table has no
 * chains for, a uid that is the control plane's.
 */
export function renderAdmission(table: string, member: FilterMember, layout: FilterLayout): string | null {
  const combo = layout.combos[groupsKey(member.groupIds)];
  if (combo === undefined || !ipaddr.IPv4.isValidFourPartDecimal(member.address)) return null;
  const { uid, address } = member;
  if (uid !== null && (!Number.isInteger(uid) || uid < 0 || layout.controlPlaneUids.includes(uid))) return null;
  const add = (name: string, element: string) => `add element inet ${table} ${name} { ${element} }`;
  const lines = [add('members', `${address} : jump ingress_${combo}`)];
  const remote = [...new Set(member.groupIds)].filter((g) => layout.remoteGroups[g] !== undefined).map((g) => layout.remoteGroups[g]);
  for (const n of remote) lines.push(add(`group_${n}_addrs`, address));
  if (uid !== null) {
    lines.push(add('instance_uids', `${uid}`), add('instance_self', `${uid} . ${address}`), add('egress', `${uid} : jump egress_${combo}`));
    for (const n of remote) lines.push(add(`group_${n}_uids`, `${uid}`));
    const ip = ipaddr.IPv4.parse(address);
    for (const c of layout.uidsByCidr) if (ip.match(ipaddr.IPv4.parseCIDR(c.cidr))) lines.push(add(c.set, `${uid}`));
  }
  return lines.join('\n') + '\n';
}

export type FilterStatus = { enforced: true } | { enforced: false; reason: string };

/**
 * Loads rendered tables with `nft`. Where it cannot (no nft, not root), it
 * says why once in `status` and keeps saying it: instances still run, unfiltered.
 */
export class PacketFilter {
  constructor(
    readonly table: string,
    private readonly nft = 'nft',
  ) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(table)) throw new Error(`packet filter table name ${table} is not an nft identifier`);
  }

  async apply(spec: Omit<FilterSpec, 'table'>): Promise<FilterStatus & Omit<RenderedFilter, 'text'>> {
    const { text, ...rendered } = renderFilter({ ...spec, table: this.table });
    return { ...(await this.load(text)), ...rendered };
  }

  /**
   * Lets a new member in with elements alone (a few ms, where a whole load
   * takes tens to hundreds): its address under its groups' chains, and an
   * instance's uid under its egress and in every set a whole load would put
   * it. The next whole load includes it as any other. Rejects where the
   * loaded table cannot take it so (see renderAdmission): load it whole.
   */
  admit(member: FilterMember, layout: FilterLayout): Promise<FilterStatus> {
    const script = renderAdmission(this.table, member, layout);
    if (script === null) return Promise.reject(new Error(`cannot admit ${member.key} (${member.address}) by elements into table ${this.table}`));
    return this.load(script);
  }

  remove(): Promise<FilterStatus> {
    return this.load(renderRemoval(this.table));
  }

  /**
   * Removes the tables of installations that are gone from the host
   * (`isGone(table)`), other than this one. A table outlives its
   * installation when its data folder is removed by hand; its rules name
   * uids and a gid the host hands out again, and would judge whoever gets
   * them. Returns the tables removed.
   */
  async removeOrphans(isGone: (table: string) => boolean): Promise<string[]> {
    if (process.getuid?.() !== 0) return [];
    const listed = await new Promise<string>((resolve) => execFile(this.nft, ['list', 'tables', 'inet'], { timeout: 30_000 }, (err, stdout) => resolve(err ? '' : stdout)));
    const orphans = listed
      .split('\n')
      .map((line) => /^table inet (\w+)$/.exec(line.trim())?.[1])
      .filter((table): table is string => !!table && table !== this.table && isGone(table));
    for (const table of orphans) await this.load(renderRemoval(table)).catch(() => undefined);
    return orphans;
  }

  private async load(script: string): Promise<FilterStatus> {
    if (process.getuid?.() !== 0) return { enforced: false, reason: 'the worker does not run as root, which nftables needs' };
    return new Promise((resolve, reject) => {
      const child = execFile(this.nft, ['-f', '-'], { timeout: 30_000 }, (err, _stdout, stderr) => {
        if (!err) return resolve({ enforced: true });
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return resolve({ enforced: false, reason: `${this.nft} (nftables) is not installed` });
        if (/Operation not permitted/i.test(stderr)) return resolve({ enforced: false, reason: `${this.nft} is not permitted to change the ruleset` });
        reject(new Error(`${this.nft} refused table ${this.table}: ${stderr.trim() || err.message}`));
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(script);
    });
  }
}

function chain(name: string, rules: string[], head?: string): string[] {
  return [`  chain ${name} {`, ...(head ? [`    ${head}`] : []), ...rules.map((r) => `    ${r}`), '  }'];
}

function set(name: string, type: string, values: string[], kind: 'set' | 'map' = 'set'): string[] {
  return [`  ${kind} ${name} {`, `    type ${type}`, ...(values.length ? [`    elements = { ${values.join(', ')} }`] : []), '  }'];
}

function join(...parts: string[]): string {
  return parts.filter(Boolean).join(' ');
}

/** The protocol and port part of a rule; null when the rule is malformed. */
function protocolMatch(rule: FilterRule): string | null {
  const port = rule.port;
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535)) return null;
  switch (rule.protocol) {
    case 'tcp':
    case 'udp':
      return port === undefined ? `meta l4proto ${rule.protocol}` : `${rule.protocol} dport ${port}`;
    case 'icmp':
      return 'meta l4proto { icmp, ipv6-icmp }';
    case 'all':
      return '';
    default:
      return null;
  }
}

function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  try {
    return ipaddr.parseCIDR(text);
  } catch {
    return null;
  }
}

/** The network of a CIDR (nft refuses host bits in a prefix). */
function cidrText([addr, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): string {
  const network = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

function family(addr: string | ipaddr.IPv4 | ipaddr.IPv6): 'ip' | 'ip6' {
  const a = typeof addr === 'string' ? ipaddr.parse(addr) : addr;
  return a.kind() === 'ipv4' ? 'ip' : 'ip6';
}

function describe(rule: FilterRule): string {
  return `malformed ${rule.direction} rule ${JSON.stringify(rule)} left out`;
}
