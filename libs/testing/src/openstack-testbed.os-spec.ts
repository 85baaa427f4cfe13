import { randomUUID } from 'node:crypto';
import { testbedClient } from './openstack-testbed';
import { waitFor } from './wait';

/**
 * The testbed itself: each service the later drivers need answers and
 * moves its objects to their working state (what scripts/openstack-testbed
 * configures). Nothing here connects to a tenant address.
 */
const client = testbedClient();

async function idOf(path: string, key: string, name: string): Promise<string> {
  const body = await client.get<Record<string, Array<{ id: string }>>>('network', path, { query: { name } });
  return body[key][0].id;
}

describe('openstack testbed', () => {
  it('Neutron: a floating IP from the external network associates with a port on the tenant network', async () => {
    const [net, pub] = [await idOf('/networks', 'networks', 'stratus-net'), await idOf('/networks', 'networks', 'public')];
    const { port } = await client.post<{ port: { id: string; status: string } }>('network', '/ports', { port: { network_id: net, name: `fip-${randomUUID()}` } });
    try {
      const { floatingip } = await client.post<{ floatingip: { id: string; floating_ip_address: string; port_id: string } }>('network', '/floatingips', {
        floatingip: { floating_network_id: pub, port_id: port.id },
      });
      expect(floatingip.port_id).toBe(port.id);
      expect(floatingip.floating_ip_address).toMatch(/^203\.0\.113\./);
      await client.delete('network', `/floatingips/${floatingip.id}`);
    } finally {
      await client.delete('network', `/ports/${port.id}`);
    }
  });

  it('Octavia: a load balancer with listener, pool, member and health monitor, each ACTIVE', async () => {
    const subnet = await idOf('/subnets', 'subnets', 'stratus-subnet');
    const lbPath = '/lbaas/loadbalancers';
    const { loadbalancer: lb } = await client.post<{ loadbalancer: { id: string } }>('load-balancer', lbPath, {
      loadbalancer: { name: `test-${randomUUID()}`, vip_subnet_id: subnet },
    });
    const active = () =>
      waitFor(
        'the load balancer to be ACTIVE',
        async () => {
          const { loadbalancer } = await client.get<{ loadbalancer: { provisioning_status: string } }>('load-balancer', `${lbPath}/${lb.id}`);
          if (loadbalancer.provisioning_status === 'ERROR') throw new Error('load balancer in ERROR');
          return loadbalancer.provisioning_status === 'ACTIVE';
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
    try {
      await active();
      const { listener } = await client.post<{ listener: { id: string } }>('load-balancer', '/lbaas/listeners', {
        listener: { loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 5432 },
      });
      await active();
      const { pool } = await client.post<{ pool: { id: string } }>('load-balancer', '/lbaas/pools', {
        pool: { listener_id: listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' },
      });
      await active();
      await client.post('load-balancer', `/lbaas/pools/${pool.id}/members`, { member: { address: '10.0.0.50', protocol_port: 5432, subnet_id: subnet } });
      await active();
      await client.post('load-balancer', '/lbaas/healthmonitors', { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 2 } });
      await active();
      const { pool: seen } = await client.get<{ pool: { provisioning_status: string; members: unknown[]; healthmonitor_id: string } }>('load-balancer', `/lbaas/pools/${pool.id}`);
      expect(seen).toMatchObject({ provisioning_status: 'ACTIVE', members: [expect.anything()], healthmonitor_id: expect.any(String) });
    } finally {
      await client.delete('load-balancer', `${lbPath}/${lb.id}`, { query: { cascade: true } });
    }
  });

  it('Heat: a stack with a server reaches CREATE_COMPLETE and deletes', async () => {
    const name = `test-${randomUUID()}`;
    const template = {
      heat_template_version: '2018-08-31',
      resources: { server: { type: 'OS::Nova::Server', properties: { image: 'debian-12', flavor: 'm1.tiny', networks: [{ network: 'stratus-net' }] } } },
      outputs: { address: { value: { get_attr: ['server', 'networks', 'stratus-net', 0] } } },
    };
    const { stack } = await client.post<{ stack: { id: string } }>('orchestration', '/stacks', { stack_name: name, template, timeout_mins: 10 });
    const status = async () =>
      (
        await client.get<{ stack: { stack_status: string; stack_status_reason: string; outputs: Array<{ output_key: string; output_value: string }> } }>(
          'orchestration',
          `/stacks/${name}/${stack.id}`,
        )
      ).stack;
    try {
      const done = await waitFor(
        'the stack to be created',
        async () => {
          const s = await status();
          if (s.stack_status === 'CREATE_FAILED') throw new Error(s.stack_status_reason);
          return s.stack_status === 'CREATE_COMPLETE' && s;
        },
        { timeoutMs: 180_000, intervalMs: 1000 },
      );
      expect(done.outputs.find((o) => o.output_key === 'address')?.output_value).toMatch(/^10\.0\.0\./);
    } finally {
      await client.delete('orchestration', `/stacks/${name}/${stack.id}`);
      await waitFor('the stack to be deleted', async () => (await status()).stack_status === 'DELETE_COMPLETE', { timeoutMs: 180_000, intervalMs: 1000 });
    }
  });
});
