import { CatalogDriver, CatalogSecurityGroup, ProviderCatalog } from '../catalog.driver';
import { isMemberGroupName } from './openstack-database.member-group';
import { OpenStackClient } from './openstack-client';
import { isSnapshotImage } from './openstack-snapshots';

interface NeutronRule {
  id: string;
  direction: 'ingress' | 'egress';
  ethertype: string;
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
  remote_group_id: string | null;
}

/**
 * The project's cloud as the catalog: Nova flavors and keypairs, the
 * active Glance images (snapshot images aside), the project's own and
 * shared networks (not the external ones, which hold floating IPs) with
 * their first IPv4 range, and Neutron security groups with their IPv4
 * rules.
 */
export class OpenStackCatalogDriver implements CatalogDriver {
  constructor(private readonly client: OpenStackClient) {}

  async catalog(): Promise<ProviderCatalog> {
    const c = this.client;
    const [flavors, images, networks, subnets, keypairs, groups] = await Promise.all([
      c.get<{ flavors: Array<{ id: string; name: string; vcpus: number; ram: number; disk: number }> }>('compute', '/flavors/detail'),
      c.get<{ images: Array<{ id: string; name: string | null; disk_format?: string; description?: string; [property: string]: unknown }> }>('image', '/images', {
        query: { status: 'active', limit: 1000 },
      }),
      c.get<{ networks: Array<{ id: string; name: string; 'router:external': boolean; subnets: string[] }> }>('network', '/networks'),
      c.get<{ subnets: Array<{ id: string; network_id: string; cidr: string; ip_version: number }> }>('network', '/subnets'),
      c.get<{ keypairs: Array<{ keypair: { name: string; fingerprint: string } }> }>('compute', '/os-keypairs'),
      c.get<{ security_groups: NeutronGroup[] }>('network', '/security-groups', {
        query: { project_id: await c.projectId() },
      }),
    ]);
    return {
      flavors: flavors.flavors.map((f) => ({ id: f.id, name: f.name, vcpus: f.vcpus, ramMb: f.ram, diskGb: f.disk })),
      // A snapshot image is one Stratus project's (its own image row), never everyone's catalog.
      images: images.images
        .filter((i) => !isSnapshotImage(i))
        .map((i) => ({ id: i.id, name: i.name ?? i.id, description: i.description ?? `Glance image (${i.disk_format ?? 'unknown format'})` })),
      networks: networks.networks
        .filter((n) => !n['router:external'])
        .flatMap((n) => {
          const subnet = subnets.subnets.find((s) => s.network_id === n.id && s.ip_version === 4);
          return subnet ? [{ id: n.id, name: n.name, cidr: subnet.cidr }] : [];
        }),
      keypairs: keypairs.keypairs.map(({ keypair }) => ({ name: keypair.name, fingerprint: keypair.fingerprint })),
      securityGroups: projectGroups(groups.security_groups).map((g) => securityGroup(g)),
    };
  }
}

interface NeutronGroup {
  id: string;
  name: string;
  description: string;
  created_at?: string;
  security_group_rules: NeutronRule[];
}

/**
 * The groups the catalog offers: not those this provider makes for itself
 * (an ha database's members' group), and one per name. Neutron lets two
 * groups share a name, the catalog names a group by it (instances ask for
 * groups by name): the oldest of a name is the one offered.
 */
function projectGroups(groups: NeutronGroup[]): NeutronGroup[] {
  const byName = new Map<string, NeutronGroup>();
  const age = (g: NeutronGroup) => `${g.created_at ?? ''} ${g.id}`;
  for (const g of groups) {
    if (isMemberGroupName(g.name)) continue;
    const held = byName.get(g.name);
    if (!held || age(g) < age(held)) byName.set(g.name, g);
  }
  return [...byName.values()];
}

function securityGroup(g: NeutronGroup): CatalogSecurityGroup {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    rules: g.security_group_rules
      .filter((r) => r.ethertype === 'IPv4')
      .map((r) => ({
        id: r.id,
        direction: r.direction,
        protocol: r.protocol === 'tcp' || r.protocol === 'udp' || r.protocol === 'icmp' ? r.protocol : 'all',
        ...(r.port_range_min !== null && r.port_range_min === r.port_range_max && r.protocol !== 'icmp' ? { port: r.port_range_min } : {}),
        ...(r.remote_ip_prefix ? { cidr: r.remote_ip_prefix } : {}),
        ...(r.remote_group_id ? { remote_group_id: r.remote_group_id } : {}),
      })),
  };
}
