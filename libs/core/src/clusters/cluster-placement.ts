/**
 * Where the members run, said as it is. SPEC.md asks members of a cluster of
 * three on three machines, so that losing one machine loses one member; a
 * provider with one machine (the local one) cannot, and the cluster says so
 * rather than pretend.
 */
export interface Placement {
  /** `spread`: every member on a machine of its own; `single-host`: all on one; `shared`: some share; `pending`: no member placed yet. */
  status: 'spread' | 'single-host' | 'shared' | 'pending';
  reason: string;
  hosts: string[];
}

export function placementOf(memberHosts: Array<string | null>): Placement {
  const placed = memberHosts.filter((h): h is string => h !== null);
  const hosts = [...new Set(placed)].sort();
  if (placed.length === 0) return { status: 'pending', reason: 'no member runs yet', hosts };
  if (hosts.length === 1) {
    return {
      status: 'single-host',
      reason:
        placed.length === 1
          ? `the one member runs on ${hosts[0]}; losing that machine stops the cluster`
          : `all ${placed.length} members run on ${hosts[0]} (the provider has one host): the cluster survives a member's loss, not the machine's`,
      hosts,
    };
  }
  if (hosts.length === placed.length) {
    return {
      status: 'spread',
      reason:
        hosts.length >= 3 ? `each member on a machine of its own (${hosts.length})` : `each member on a machine of its own, but ${hosts.length} members are not highly available`,
      hosts,
    };
  }
  return { status: 'shared', reason: `${placed.length} members on ${hosts.length} machines: losing one machine may stop several members`, hosts };
}
