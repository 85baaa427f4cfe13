import { DatabaseServerSpec, ETCD_CLIENT_PORT, ETCD_PEER_PORT, PATRONI_REST_PORT } from '../databases.driver';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { keeper, MARK } from './openstack-resources';

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

type WantedRule = Pick<NeutronRule, 'port_range_min' | 'port_range_max'> & ({ remote_group_id: string } | { remote_ip_prefix: string });

export function memberGroupName(key: string): string {
  return MARK.name(`members-${key}`);
}

/** A group this provider made for an ha database's members: internal, never the catalog's. */
export function isMemberGroupName(name: string): boolean {
  return name.startsWith(MARK.name('members-'));
}

/** The members' group (made, or the oldest of racing copies), with its ingress rules; returns its id. */
export async function keepMemberGroup(client: OpenStackClient, spec: DatabaseServerSpec): Promise<string> {
  const name = memberGroupName(spec.key);
  let groups = await groupsNamed(client, name);
  if (groups.length === 0) {
    await client.post('network', '/security-groups', { security_group: { name, description: `stratus: the members of ha database ${spec.key}` } });
    // Looked up again: two racing runs both see the oldest.
    groups = await groupsNamed(client, name);
  }
  const group = keeper(groups, (g) => g.created_at);
  // A racing run's copy goes (each run keeps the oldest, so no port joins another); one in use already is left to the delete.
  for (const extra of groups) {
    if (extra.id === group.id) continue;
    await client.delete('network', `/security-groups/${extra.id}`).catch((err: unknown) => {
      if (!(err instanceof OpenStackError && (err.status === 404 || err.status === 409))) throw err;
    });
  }
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
  return group.id;
}

/** Puts the port in the group alone: out of `default`, whose members are every tenant's instances. */
export async function joinMemberGroup(client: OpenStackClient, portId: string, groupId: string): Promise<void> {
  await client.put('network', `/ports/${portId}`, { port: { security_groups: [groupId] } });
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
    const { ports } = await client.get<{ ports: Array<{ id: string; security_groups: string[] }> }>('network', '/ports', { query: { name: MARK.name(memberKey) } });
    for (const port of ports) {
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
