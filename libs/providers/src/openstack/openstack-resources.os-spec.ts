import { testbedClient, testbedNetworkId } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { OpenStackNetworkDriver } from './openstack-network.driver';
import { bootOnPort, MARK } from './openstack-resources';

/** bootOnPort's claim against the testbed's Neutron: its compare-and-set on the port's revision. */
const client = testbedClient();
const network = new OpenStackNetworkDriver(client);
const made: string[] = [];
let networkId: string;

beforeAll(async () => {
  networkId = await testbedNetworkId(client);
});

afterAll(async () => {
  for (const id of made) await network.releaseAddress(id);
});

/** A port as the network driver makes one for a resource; its id and what its description says. */
async function portFor(): Promise<{ id: string; description: () => Promise<string> }> {
  const key = `claim-${randomUUID()}`;
  made.push(key);
  await network.ensureAddress({ id: key, networkId, cidr: '10.0.0.0/24', kind: 'database' });
  const { ports } = await client.get<{ ports: Array<{ id: string }> }>('network', '/ports', { query: { name: MARK.name(key) } });
  const id = ports[0].id;
  return { id, description: async () => (await client.get<{ port: { description: string } }>('network', `/ports/${id}`)).port.description };
}

describe('bootOnPort against Neutron', () => {
  it('lets one of many racing runs boot, whichever reads the port first', async () => {
    const port = await portFor();
    let boots = 0;
    const answers = await Promise.all(Array.from({ length: 6 }, () => bootOnPort(client, port.id, async () => void boots++)));
    expect(boots).toBe(1);
    expect(answers.filter(Boolean)).toHaveLength(1);
    // The claim sits after what the network driver wrote, which stays.
    expect(await port.description()).toMatch(/^stratus database claim-\S+; boot claimed \S+Z$/);
    // A repeat while the claim holds boots nothing more.
    expect(await bootOnPort(client, port.id, async () => void boots++)).toBe(false);
    expect(boots).toBe(1);
  });

  it('takes over a claim older than its hold (its run died before booting); a boot refused gives the claim back', async () => {
    const port = await portFor();
    const base = await port.description();
    await client.put('network', `/ports/${port.id}`, { port: { description: `${base}; boot claimed ${new Date(Date.now() - 10 * 60_000).toISOString()}` } });
    let boots = 0;
    expect(await bootOnPort(client, port.id, async () => void boots++)).toBe(true);
    expect(boots).toBe(1);

    const other = await portFor();
    const unclaimed = await other.description();
    const refused = new Error('Nova refused the boot');
    await expect(bootOnPort(client, other.id, () => Promise.reject(refused))).rejects.toBe(refused);
    expect(await other.description()).toBe(unclaimed);
    // So the repeat boots at once, rather than waiting out a claim nobody acts on.
    expect(await bootOnPort(client, other.id, async () => void boots++)).toBe(true);
    expect(boots).toBe(2);
  });
});
