import { OpenStackClient } from './openstack-client';
import { MARK, NovaServer, serverOf } from './openstack-resources';

/** Nova and Neutron as serverOf sees them: the copies of one resource's server, and the port named for it. */
class CloudStub {
  readonly deleted: string[] = [];
  /** Every call that changed something, in order. */
  readonly changes: string[] = [];
  constructor(
    private servers: NovaServer[],
    private portDevice: string,
  ) {}
  async get(service: string, path: string, options: { query: Record<string, string> }): Promise<unknown> {
    if (service === 'compute' && path === '/servers/detail') return { servers: this.servers };
    if (service === 'network' && path === '/ports' && options.query.name === MARK.name('redis-7'))
      return { ports: [{ id: 'port-7', name: MARK.name('redis-7'), device_id: this.portDevice }] };
    throw new Error(`unexpected GET ${service} ${path}`);
  }
  async put(service: string, path: string, body: { port: { device_id: string } }): Promise<unknown> {
    if (service !== 'network' || path !== '/ports/port-7') throw new Error(`unexpected PUT ${service} ${path}`);
    this.portDevice = body.port.device_id;
    this.changes.push(`port to ${this.portDevice}`);
    return body;
  }
  async delete(_service: string, path: string): Promise<void> {
    const id = path.split('/').pop()!;
    this.deleted.push(id);
    this.changes.push(`delete ${id}`);
    this.servers = this.servers.filter((s) => s.id !== id);
  }
}

const copy = (id: string, created: string, status = 'ACTIVE'): NovaServer => ({ id, name: MARK.name('redis-7'), status, created, metadata: { [MARK.idKey]: 'redis-7' } });

describe('serverOf, two racing boots on one port', () => {
  it('keeps the copy the port is bound to when both came up, the newer one too', async () => {
    const cloud = new CloudStub([copy('older', '2026-11-27T03:00:00Z'), copy('newer', '2026-11-27T03:00:01Z')], 'newer');
    expect((await serverOf(cloud as unknown as OpenStackClient, 'redis-7'))?.id).toBe('newer');
    expect(cloud.deleted).toEqual(['older']);
  });

  it('keeps the one that booted when the other went to ERROR, and the oldest when the port names neither', async () => {
    const failed = new CloudStub([copy('older', '2026-11-27T03:00:00Z', 'ERROR'), copy('newer', '2026-11-27T03:00:01Z')], 'newer');
    expect((await serverOf(failed as unknown as OpenStackClient, 'redis-7'))?.id).toBe('newer');
    expect(failed.deleted).toEqual(['older']);
    const unbound = new CloudStub([copy('older', '2026-11-27T03:00:00Z'), copy('newer', '2026-11-27T03:00:01Z')], '');
    expect((await serverOf(unbound as unknown as OpenStackClient, 'redis-7'))?.id).toBe('older');
    expect(unbound.deleted).toEqual(['newer']);
  });

  it('moves the port to the copy kept before deleting the failed copy it names (whose delete would unbind it)', async () => {
    const cloud = new CloudStub([copy('older', '2026-11-27T03:00:00Z'), copy('newer', '2026-11-27T03:00:01Z', 'ERROR')], 'newer');
    expect((await serverOf(cloud as unknown as OpenStackClient, 'redis-7'))?.id).toBe('older');
    expect(cloud.changes).toEqual(['port to older', 'delete newer']);
  });

  it('deletes nothing while a copy still builds', async () => {
    const cloud = new CloudStub([copy('older', '2026-11-27T03:00:00Z'), copy('newer', '2026-11-27T03:00:01Z', 'BUILD')], 'newer');
    expect((await serverOf(cloud as unknown as OpenStackClient, 'redis-7'))?.id).toBe('older');
    expect(cloud.deleted).toEqual([]);
  });
});
