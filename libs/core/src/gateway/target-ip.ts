import * as ipaddr from 'ipaddr.js';

export type TargetIpVerdict = { ok: true; address: string } | { ok: false; reason: string };

/** Addresses of cloud metadata services, refused whatever the allow-list says. */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254'];

/** Ranges ipaddr.js names that are never a route target. */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'reserved']);

/**
 * The one check of a gateway route's targetIp. Every spelling a resolver or
 * socket library accepts (short, hex, octal and integer IPv4, IPv4-mapped and
 * IPv4-compatible IPv6, zone ids) is parsed by ipaddr.js into one address
 * first, so the rules apply to the address, never to its text:
 *
 * 1. it must be an IP address (no hostnames: they would be resolved later,
 *    to anything);
 * 2. link-local, metadata, unspecified, broadcast, multicast and reserved
 *    addresses are refused always;
 * 3. loopback is refused unless it is inside an allowed network (the local
 *    provider's instance pool is loopback; the control plane's own 127.0.0.1
 *    and ::1 are not in it);
 * 4. the address must be inside one of `allowedNetworks`, and not its
 *    network or broadcast address (no resource ever holds those; a
 *    connection to them lands on whatever listens on the wildcard).
 *
 * Returns the canonical spelling, which is what is stored and connected to.
 */
export function checkTargetIp(input: string, allowedNetworks: string[]): TargetIpVerdict {
  const text = input.trim();
  if (text === '' || text !== input || text.length > 64) return { ok: false, reason: 'must be an IP address' };
  // ipaddr.js accepts a zone id (fe80::1%eth0); the zone is meaningless for a target.
  if (text.includes('%')) return { ok: false, reason: 'must not carry a zone id' };
  if (!ipaddr.isValid(text)) return { ok: false, reason: 'must be an IP address' };
  let address = ipaddr.parse(text);
  // ::ffff:a.b.c.d and the deprecated ::a.b.c.d both reach the IPv4 address.
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((p) => p === 0) && !['unspecified', 'loopback'].includes(v6.range())) {
      address = ipaddr.IPv4.parse(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
    } else if (v6.range() === 'rfc6052' || v6.range() === 'teredo' || v6.range() === '6to4') {
      return { ok: false, reason: 'must not be a translated or tunnelled IPv6 address' };
    }
  }
  const canonical = address.toString();
  const range = address.range();
  if (METADATA.some((m) => ipaddr.parse(m).toString() === canonical)) {
    return { ok: false, reason: 'is a metadata service address' };
  }
  if (NEVER.has(range)) return { ok: false, reason: `is a ${range} address` };
  const inAllowed = allowedNetworks.some((cidr) => {
    const [net, bits] = ipaddr.parseCIDR(cidr);
    return net.kind() === address.kind() && address.match(net, bits);
  });
  if (range === 'loopback' && !inAllowed) return { ok: false, reason: 'is a loopback address of the control plane' };
  if (!inAllowed) return { ok: false, reason: `is outside the allowed networks (${allowedNetworks.join(', ')})` };
  const boundary = allowedNetworks.find((cidr) => address.kind() === 'ipv4' && isNetworkOrBroadcast(canonical, cidr));
  if (boundary) return { ok: false, reason: `is the network or broadcast address of ${boundary}` };
  return { ok: true, address: canonical };
}

function isNetworkOrBroadcast(address: string, cidr: string): boolean {
  if (!ipaddr.IPv4.isValidCIDR(cidr)) return false;
  return [ipaddr.IPv4.networkAddressFromCIDR(cidr), ipaddr.IPv4.broadcastAddressFromCIDR(cidr)].some((a) => a.toString() === address);
}
