import { OpenStackCatalogDriver } from './openstack-catalog.driver';
import { OpenStackClient } from './openstack-client';

describe('OpenStackCatalogDriver security groups', () => {
  /** A client whose Neutron lists `groups` and whose other lists are empty. */
  function catalogOf(groups: Array<{ id: string; name: string; created_at?: string }>) {
    const answers: Record<string, unknown> = {
      '/flavors/detail': { flavors: [] },
      '/images': { images: [] },
      '/networks': { networks: [] },
      '/subnets': { subnets: [] },
      '/os-keypairs': { keypairs: [] },
      '/security-groups': { security_groups: groups.map((g) => ({ description: '', security_group_rules: [], ...g })) },
    };
    const client = { get: async (_service: string, path: string) => answers[path], projectId: async () => 'project' } as unknown as OpenStackClient;
    return new OpenStackCatalogDriver(client).catalog();
  }

  it("offers one group per name, the oldest, and none of an ha database's members' groups", async () => {
    const { securityGroups } = await catalogOf([
      { id: 'b', name: 'web', created_at: '2026-11-26T10:00:00Z' },
      { id: 'a', name: 'web', created_at: '2026-11-26T11:00:00Z' },
      { id: 'c', name: 'default', created_at: '2026-11-26T09:00:00Z' },
      { id: 'd', name: 'stratus-members-postgres-7', created_at: '2026-11-26T09:00:00Z' },
    ]);
    expect(securityGroups.map((g) => `${g.name} ${g.id}`).sort()).toEqual(['default c', 'web b']);
  });
});
