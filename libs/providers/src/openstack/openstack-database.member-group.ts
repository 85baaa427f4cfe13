import { DatabaseServerSpec, ETCD_CLIENT_PORT, ETCD_PEER_PORT, PATRONI_REST_PORT } from '../databases.driver';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK, portsOf } from './openstack-resources';

/*
 * The Neutron security group of an ha database's members. Their etcd has no
 * authentication (docs/security.md): in the project's `default` group,
 * which every instance of every tenant on the cloud project shares, any of
 * those instances could rewrite the cluster's state. In a group of their
 * own, etcd's ports (2379, 2380) take connections from the members alone
 * (the group as the rule's source). PostgreSQL and Patroni's REST API stay
 * open to the network: clients come through the load balancer, whose
 * connections and `/primary` checks leave its own ports there; PostgreSQL
 * asks every client for the user's SCRAM login, and the REST API changes
 * nothing without its credential.
 */

interface NeutronRule {
  direction: string;
  ethertype: string;
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_group_id: string | null;
  remote_ip_prefix: string | null;
}

interface NeutronGroup {
  id: string;
  name: string;
  created_at: string;
  security_group_rules: NeutronRule[];
}

interface NeutronPort {
  id: string;
  name: string;
  security_groups: string[];
}

type WantedRule = Pick<NeutronRule, 'port_range_min' | 'port_range_max'> & ({ remote_group_id: string } | { remote_ip_prefix: string });

export function memberGroupName(key: string): string {
  return MARK.name(`members-${key}`);
}

/** A group this provider made for an ha database's members: internal, never the catalog's. */
export function isMemberGroupName(name: string): boolean {
  return name.startsWith(MARK.name('members-'));
}

/** The group the members' ports are to be in, and the racing copies of it that are to go. */
export interface MemberGroup {
  id: string;
  copies: string[];
}

/**
 * The members' group (made, or the one of racing copies every run keeps),
 * with its ingress rules. The copies are not deleted here: a run that saw
 * only its own copy may have put members' ports in it (settleMemberPorts).
 */
export async function keepMemberGroup(client: OpenStackClient, spec: DatabaseServerSpec): Promise<MemberGroup> {
  const name = memberGroupName(spec.key);
  let groups = await groupsNamed(client, name);
  if (groups.length === 0) {
    await client.post('network', '/security-groups', { security_group: { name, description: `stratus: the members of ha database ${spec.key}` } });
    // Looked up again: a racing run's copy made before this look is seen, and the same one kept by both.
    groups = await groupsNamed(client, name);
  }
  const group = keeper(groups, (g) => g.created_at);
  const wanted: WantedRule[] = [
    { port_range_min: ETCD_CLIENT_PORT, port_range_max: ETCD_PEER_PORT, remote_group_id: group.id },
    { port_range_min: spec.port, port_range_max: spec.port, remote_ip_prefix: '0.0.0.0/0' },
    { port_range_min: PATRONI_REST_PORT, port_range_max: PATRONI_REST_PORT, remote_ip_prefix: '0.0.0.0/0' },
  ];
  for (const rule of wanted) {
    if (group.security_group_rules.some((held) => sameRule(held, rule))) continue;
    try {
      await client.post('network', '/security-group-rules', {
        security_group_rule: { security_group_id: group.id, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', ...rule },
      });
    } catch (err) {
      // Another run's copy of the rule (Neutron's SecurityGroupRuleExists) is the rule.
      if (!(err instanceof OpenStackError && err.status === 409)) throw err;
    }
  }
  return { id: group.id, copies: groups.filter((g) => g.id !== group.id).map((g) => g.id) };
}

/** Puts the port in the group alone: out of `default`, whose members are every tenant's instances. */
export async function joinMemberGroup(client: OpenStackClient, portId: string, groupId: string): Promise<void> {
  try {
    await client.put('network', `/ports/${portId}`, { port: { security_groups: [groupId] } });
  } catch (err) {
    // A racing copy this run kept, deleted by a run that saw the group kept by all: the next run joins that one.
    if (err instanceof OpenStackError && err.status === 404)
      throw new DriverError('retryable', `the security group of the members went while a port joined it: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Every member's port in the kept group alone, then the racing copies
 * deleted. Two runs of one create that make the group within the same
 * moment may each see only their own copy, and put the members they boot
 * in it: members split across two groups do not reach each other's etcd,
 * which takes connections from its own group only. So this runs on every
 * ensure of the members, not only when one boots, and a copy goes only once
 * no member's port names it (Neutron refuses to delete a group in use
 * anyway: a port of a run still mid-boot keeps it, and the next ensure
 * moves that port too).
 */
export async function settleMemberPorts(client: OpenStackClient, memberKeys: string[], group: MemberGroup): Promise<void> {
  const ports = (await Promise.all(memberKeys.map((k) => portsOf<NeutronPort>(client, k)))).flat();
  for (const port of ports) {
    if (port.security_groups.length === 1 && port.security_groups[0] === group.id) continue;
    await joinMemberGroup(client, port.id, group.id);
  }
  for (const copy of group.copies) {
    await client.delete('network', `/security-groups/${copy}`).catch((err: unknown) => {
      if (!(err instanceof OpenStackError && (err.status === 404 || err.status === 409))) throw err;
    });
  }
}

/**
 * Deletes the members' group once their servers are gone. Their ports
 * (the network driver's, released after this) still name it, and Neutron
 * refuses to delete a group in use: they leave it first.
 */
export async function removeMemberGroup(client: OpenStackClient, key: string, memberKeys: string[]): Promise<void> {
  const groups = await groupsNamed(client, memberGroupName(key));
  if (groups.length === 0) return;
  const ids = new Set(groups.map((g) => g.id));
  for (const memberKey of memberKeys) {
    for (const port of await portsOf<NeutronPort>(client, memberKey)) {
      if (port.security_groups.some((g) => ids.has(g))) await client.put('network', `/ports/${port.id}`, { port: { security_groups: [] } });
    }
  }
  for (const group of groups) {
    try {
      await client.delete('network', `/security-groups/${group.id}`);
    } catch (err) {
      if (err instanceof OpenStackError && err.status === 404) continue;
      // In use by a port this look did not find (another run's, mid-change): the next delete of the database finishes it.
      if (err instanceof OpenStackError && err.status === 409)
        throw new DriverError('retryable', `the security group of ${key}'s members is still in use: ${err.message}`, { cause: err });
      throw err;
    }
  }
}

async function groupsNamed(client: OpenStackClient, name: string): Promise<NeutronGroup[]> {
  const { security_groups } = await client.get<{ security_groups: NeutronGroup[] }>('network', '/security-groups', { query: { name } });
  return security_groups.filter((g) => g.name === name);
}

function sameRule(held: NeutronRule, want: WantedRule): boolean {
  return (
    held.direction === 'ingress' &&
    held.ethertype === 'IPv4' &&
    held.protocol === 'tcp' &&
    held.port_range_min === want.port_range_min &&
    held.port_range_max === want.port_range_max &&
    ('remote_group_id' in want ? held.remote_group_id === want.remote_group_id : held.remote_ip_prefix === want.remote_ip_prefix)
  );
}
