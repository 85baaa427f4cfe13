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

/** The whole table of one installation: render it from this, load it in one go. */
export interface FilterSpec {
  table: string;
  /** The loopback pool (IPv4 CIDR) instances and database servers get addresses from. */
  pool: string;
  /** Primary group of every instance user: a sender in it is an instance even before its uid is known. */
  instancesGid: number | null;
  /** Senders that reach every pool address: root, the worker, the edge's HAProxy (probes, routing). */
  controlPlaneUids: number[];
  members: FilterMember[];
  groups: Record<string, FilterRule[]>;
  publicEndpoints: PublicEndpoint[];
}

export interface RenderedFilter {
  text: string;
  /** Rules left out because they were malformed: such a rule grants nothing. */
  skipped: string[];
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
  const members = spec.members.map((m) => ({ ...m })).filter((m) => {
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
  const rulesOf = (m: FilterMember, direction: FilterRule['direction']) =>
    m.groupIds.flatMap((g) => (spec.groups[g] ?? []).filter((r) => r.direction === direction).map((r) => ({ group: g, rule: r })));
  const membersOf = (groupId: string) => members.filter((m) => m.groupIds.includes(groupId));

  const out: string[] = [];
  out.push(`add table inet ${spec.table}`, `delete table inet ${spec.table}`, `table inet ${spec.table} {`);

  out.push('  set instance_uids {', '    type uid', ...elements(instances.map((i) => String(i.uid))), '  }');

  // --- output: egress of instances, then ingress of pool addresses
  const outputRules = ['ct state != new accept'];
  if (instances.length) outputRules.push(`meta skuid vmap { ${instances.map((i, n) => `${i.uid} : jump egress_${n}`).join(', ')} }`);
  // An instance whose uid is not in the table yet (it is being built) still gets the boundary.
  if (spec.instancesGid !== null) outputRules.push(`meta skgid ${spec.instancesGid} jump boundary`);
  outputRules.push(`ip daddr ${poolText} jump ingress`);
  out.push(...chain('output', outputRules, 'type filter hook output priority filter; policy accept;'));

  // --- the fixed boundary: no local address outside the pool but the public endpoints
  const boundary = [`ip daddr ${poolText} return`];
  for (const e of spec.publicEndpoints) {
    const ports = e.ports.from === e.ports.to ? `${e.ports.from}` : `${e.ports.from}-${e.ports.to}`;
    if (e.address === null) boundary.push(`tcp dport ${ports} return`);
    else if (ipaddr.isValid(e.address)) boundary.push(`${family(e.address)} daddr ${e.address} tcp dport ${ports} return`);
  }
  boundary.push(...REJECT.map((r) => `fib daddr type local ${r}`));
  out.push(...chain('boundary', boundary));

  // --- egress, one chain per instance with a uid
  instances.forEach((inst, n) => {
    const rules = ['jump boundary', `ip daddr ${inst.address} accept`];
    for (const { group, rule } of rulesOf(inst, 'egress')) {
      const proto = protocolMatch(rule);
      if (proto === null) {
        skipped.push(`${group}: ${describe(rule)}`);
        continue;
      }
      if (rule.remote_group_id !== undefined) {
        const addresses = membersOf(rule.remote_group_id).map((m) => m.address);
        if (addresses.length) rules.push(join(`ip daddr { ${addresses.join(', ')} }`, proto, 'return'));
      } else if (rule.cidr !== undefined) {
        const cidr = parseCidr(rule.cidr);
        if (!cidr) skipped.push(`${group}: ${describe(rule)}`);
        else rules.push(join(`${family(cidr[0])} daddr ${cidrText(cidr)}`, proto, 'return'));
      } else {
        rules.push(join(proto, 'return'));
      }
    }
    rules.push(...REJECT);
    out.push(...chain(`egress_${n}`, rules));
  });

  // --- ingress: the control plane, else the rules of whatever holds the address
  const ingress = [];
  if (spec.controlPlaneUids.length) ingress.push(`meta skuid { ${[...new Set(spec.controlPlaneUids)].join(', ')} } accept`);
  if (members.length) ingress.push(`ip daddr vmap { ${members.map((m, n) => `${m.address} : jump ingress_${n}`).join(', ')} }`);
  ingress.push(...REJECT);
  out.push(...chain('ingress', ingress));

  // A sender that is no instance is judged by its source address; an instance never is.
  const notInstance = [spec.instancesGid !== null ? `meta skgid != ${spec.instancesGid}` : '', 'meta skuid != @instance_uids'].filter(Boolean).join(' ');
  members.forEach((member, n) => {
    const rules: string[] = [];
    for (const { group, rule } of rulesOf(member, 'ingress')) {
      const proto = protocolMatch(rule);
      if (proto === null) {
        skipped.push(`${group}: ${describe(rule)}`);
        continue;
      }
      if (rule.remote_group_id !== undefined) {
        const uids = instances.filter((i) => i.groupIds.includes(rule.remote_group_id!)).map((i) => i.uid);
        if (uids.length) rules.push(join(`meta skuid { ${uids.join(', ')} }`, proto, 'accept'));
        continue;
      }
      const cidr = rule.cidr === undefined ? pool : parseCidr(rule.cidr);
      if (!cidr) {
        skipped.push(`${group}: ${describe(rule)}`);
        continue;
      }
      const uids = instances.filter((i) => ipaddr.parse(i.address).kind() === cidr[0].kind() && ipaddr.parse(i.address).match(cidr)).map((i) => i.uid);
      if (uids.length) rules.push(join(`meta skuid { ${uids.join(', ')} }`, proto, 'accept'));
      rules.push(join(notInstance, `${family(cidr[0])} saddr ${cidrText(cidr)}`, proto, 'accept'));
    }
    rules.push(...REJECT);
    out.push(...chain(`ingress_${n}`, rules, `comment "${member.key.replace(/[^A-Za-z0-9_.:-]/g, '')}"`));
  });

  // --- input: a pool address never reaches a host service listening on the wildcard
  out.push(
    ...chain('input', [`ip daddr ${poolText} tcp flags & (syn | ack) == syn socket wildcard 1 reject with tcp reset`], 'type filter hook input priority filter; policy accept;'),
  );
  out.push('}');
  return { text: out.join('\n') + '\n', skipped };
}

/** The script that removes the table (nothing left if it is already gone). */
export function renderRemoval(table: string): string {
  return `add table inet ${table}\ndelete table inet ${table}\n`;
}

/** The packet filter of this installation (the local provider's security groups). */
export const PACKET_FILTER = Symbol('PACKET_FILTER');

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

  async apply(spec: Omit<FilterSpec, 'table'>): Promise<FilterStatus & { skipped: string[] }> {
    const rendered = renderFilter({ ...spec, table: this.table });
    return { ...(await this.load(rendered.text)), skipped: rendered.skipped };
  }

  remove(): Promise<FilterStatus> {
    return this.load(renderRemoval(this.table));
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

function elements(values: string[]): string[] {
  return values.length ? [`    elements = { ${values.join(', ')} }`] : [];
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
  const network = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr}/${bits}`);
  return `${network.toString()}/${bits}`;
}

function family(addr: string | ipaddr.IPv4 | ipaddr.IPv6): 'ip' | 'ip6' {
  const a = typeof addr === 'string' ? ipaddr.parse(addr) : addr;
  return a.kind() === 'ipv4' ? 'ip' : 'ip6';
}

function describe(rule: FilterRule): string {
  return `malformed ${rule.direction} rule ${JSON.stringify(rule)} left out`;
}
