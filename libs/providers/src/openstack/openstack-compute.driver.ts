import { ComputeDriver, CpuUsage, InstanceSpec, ObservedInstance, SnapshotImage, SnapshotSpec } from '../compute.driver';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';
import { bootOnPort, findOrMakeServerGroup, MARK, NovaServer, removeServerGroups, serverOf, serversOf, until } from './openstack-resources';
import { OpenStackSnapshots } from './openstack-snapshots';

interface NovaFlavor {
  id: string;
  name: string;
  vcpus: number;
  ram: number;
  disk: number;
}

export interface OpenStackComputeOptions {
  /** A server still in BUILD this long after its create is failed (and removed). */
  bootTimeoutMs: number;
  /** The network (name or id) a server goes on when it has no port of its own; empty: the project's only one. */
  network: string;
  /** How long a delete waits for Nova to let the server go. */
  deleteWaitMs?: number;
}

/**
 * Nova servers, one per instance id, in the controller-runtime shape of
 * ComputeDriver. A create looks first (the server tagged with the id and
 * carrying it in its metadata), so a job retried after its POST reached
 * Nova finds that server and makes no second one; copies left by two runs
 * racing are reduced to the oldest. The instance's port, when the network
 * driver made one for it, is the server's network.
 */
export class OpenStackComputeDriver implements ComputeDriver {
  private flavors: NovaFlavor[] | null = null;
  /** Server groups being looked up or made, by placement group. */
  private readonly serverGroups = new Map<string, Promise<string>>();
  private readonly snapshots: OpenStackSnapshots;

  constructor(
    private readonly client: OpenStackClient,
    private readonly opts: OpenStackComputeOptions,
  ) {
    this.snapshots = new OpenStackSnapshots(client);
  }

  async observe(id: string): Promise<ObservedInstance | null> {
    const server = await serverOf(this.client, id);
    return server ? observed(server) : null;
  }

  async observeAll(ids: string[]): Promise<Map<string, ObservedInstance>> {
    const wanted = new Set(ids);
    const found = new Map<string, ObservedInstance>();
    if (wanted.size === 0) return found;
    // One sweep over every server the provider made, page by page.
    let marker: string | undefined;
    for (;;) {
      const { servers } = await this.client.get<{ servers: NovaServer[] }>('compute', '/servers/detail', {
        query: { tags: MARK.managedTag, limit: 200, marker },
      });
      for (const s of servers) {
        const id = s.metadata?.[MARK.idKey];
        if (id && wanted.has(id) && s.status !== 'DELETED' && !found.has(id)) found.set(id, observed(s));
      }
      if (servers.length < 200) return found;
      marker = servers[servers.length - 1].id;
    }
  }

  async create(spec: InstanceSpec): Promise<ObservedInstance> {
    const existing = await serverOf(this.client, spec.id);
    if (existing) return this.judge(spec.id, existing);
    const flavor = await this.flavorFor(spec);
    // A snapshot id boots its Glance image once Nova has uploaded it (minutes, maybe): until then nothing
    // runs and nothing is made, and the job looks again later (as for a boot) rather than spending an attempt.
    const imageRef = await this.snapshots.imageRef(spec.imageId);
    if (imageRef === null) return { running: false, ready: false, limits: limitsOf(flavor) };
    const networks = await this.networksFor(spec);
    const server: Record<string, unknown> = {
      name: MARK.name(spec.id),
      // A catalog image id is Glance's own.
      imageRef,
      flavorRef: flavor.id,
      networks,
      metadata: { [MARK.idKey]: spec.id },
      tags: [MARK.managedTag, MARK.idTag(spec.id)],
    };
    if (spec.userData) server.user_data = Buffer.from(spec.userData, 'utf8').toString('base64');
    if (spec.keyName) server.key_name = spec.keyName;
    // On a network (no port of its own), Nova makes the port and applies the groups itself.
    if (spec.securityGroupIds?.length && 'uuid' in networks[0]) {
      server.security_groups = spec.securityGroupIds.map((name) => ({ name }));
    }
    // Spread over hosts where Nova can (soft: a cloud of one host still boots every member).
    const hints = spec.placementGroup ? { 'os:scheduler_hints': { group: await this.serverGroupFor(spec.placementGroup) } } : {};
    const post = async () => {
      try {
        await this.client.post('compute', '/servers', { server, ...hints });
      } catch (err) {
        // Nova answers 400 for an image or flavor it does not have: the spec cannot boot, say which.
        if (err instanceof OpenStackError && err.status === 400) throw new DriverError('invalid', `boot failed: ${err.message}`);
        throw err;
      }
    };
    // On the port the network driver made, unless another run is booting there (its server is then the one);
    // on a network, Nova makes each copy a port of its own, and serverOf deletes the copies.
    const port = networks[0].port;
    await (port ? bootOnPort(this.client, port, post) : post());
    return { running: true, ready: false, limits: limitsOf(flavor) };
  }

  async delete(id: string): Promise<void> {
    for (const server of await serversOf(this.client, id)) await this.client.delete('compute', `/servers/${server.id}`);
    // Gone for Nova before the call returns: the next observe says null, and the port is free to go.
    await until(`server of instance ${id} to be deleted`, async () => (await serversOf(this.client, id)).length === 0, this.opts.deleteWaitMs ?? 60_000);
  }

  /**
   * The fake virt driver (and Nova without telemetry) measures no CPU
   * time: no instance is in the map, which the autoscaler reads as "no
   * reading", never as idle.
   */
  async usage(): Promise<Map<string, CpuUsage>> {
    return new Map();
  }

  /** Nova's createImage of the instance's server (OpenStackSnapshots says how a repeat finds it). */
  snapshot(spec: SnapshotSpec): Promise<SnapshotImage> {
    return this.snapshots.snapshot(spec);
  }

  observeSnapshot(id: string): Promise<SnapshotImage | null> {
    return this.snapshots.observe(id);
  }

  deleteSnapshot(id: string): Promise<void> {
    return this.snapshots.delete(id);
  }

  async removePlacementGroup(group: string): Promise<void> {
    await removeServerGroups(this.client, MARK.name(`group-${group}`));
  }

  /**
   * The Nova server group of a placement group, made on first use with the
   * soft-anti-affinity policy (one create at a time per group in this
   * process). Two processes racing may each make one: all then use the
   * lowest id, and removePlacementGroup removes every one of the name.
   */
  private serverGroupFor(group: string): Promise<string> {
    const making = this.serverGroups.get(group) ?? findOrMakeServerGroup(this.client, MARK.name(`group-${group}`), 'soft-anti-affinity');
    this.serverGroups.set(group, making);
    // Kept only while it is made: a later create looks again (the group may have been removed meanwhile).
    void making.finally(() => this.serverGroups.delete(group)).catch(() => undefined);
    return making;
  }

  /** What a found server means for a create: ready, booting, or a terminal error (an ERROR server, or a boot past its time, removed first). */
  private async judge(id: string, server: NovaServer): Promise<ObservedInstance> {
    if (server.status === 'ERROR') {
      // Nova's list leaves the fault out for a server that never left cell0 (no host found): the server itself has it.
      const fault = server.fault ?? (await this.client.get<{ server: NovaServer }>('compute', `/servers/${server.id}`)).server.fault;
      throw new DriverError('invalid', `boot failed: ${fault?.message?.trim() || 'Nova put the server in ERROR without a fault'}`);
    }
    if (server.status === 'BUILD' && Date.parse(server.created) + this.opts.bootTimeoutMs < Date.now()) {
      await this.delete(id);
      throw new DriverError('invalid', `boot failed: not ready within ${this.opts.bootTimeoutMs} ms (Nova kept it in BUILD)`);
    }
    return observed(server);
  }

  /** The catalog flavor's Nova flavor: the one of exactly its size, else the smallest that holds it. */
  private async flavorFor(spec: InstanceSpec): Promise<NovaFlavor> {
    this.flavors ??= (await this.client.get<{ flavors: NovaFlavor[] }>('compute', '/flavors/detail')).flavors;
    const { vcpus, ramMb } = spec.flavor;
    const exact = this.flavors.find((f) => f.vcpus === vcpus && f.ram === ramMb);
    const fits = this.flavors.filter((f) => f.vcpus >= vcpus && f.ram >= ramMb).sort((a, b) => a.vcpus - b.vcpus || a.ram - b.ram)[0];
    const flavor = exact ?? fits;
    if (!flavor) {
      this.flavors = null;
      throw new DriverError('invalid', `no Nova flavor holds ${vcpus} vCPU and ${ramMb} MiB`);
    }
    return flavor;
  }

  /**
   * The instance's own port when the network driver made one, else the
   * configured (or only) network. Its security groups go on the port: Nova
   * applies a server's `security_groups` only to ports it makes itself.
   */
  private async networksFor(spec: InstanceSpec): Promise<Array<Record<string, string>>> {
    const { ports } = await this.client.get<{ ports: Array<{ id: string; security_groups: string[] }> }>('network', '/ports', {
      query: { name: MARK.name(spec.id) },
    });
    const groups = spec.securityGroupIds ?? [];
    if (ports.length > 0) {
      const port = ports[0];
      if (groups.length > 0 && [...groups].sort().join() !== [...port.security_groups].sort().join()) {
        await this.client.put('network', `/ports/${port.id}`, { port: { security_groups: groups } });
      }
      return [{ port: port.id }];
    }
    return [{ uuid: await defaultNetwork(this.client, this.opts.network) }];
  }
}

/** The network named (by name or id), else the project's one network that is not external. */
export async function defaultNetwork(client: OpenStackClient, wanted: string): Promise<string> {
  const { networks } = await client.get<{ networks: Array<{ id: string; name: string; 'router:external': boolean; project_id: string }> }>('network', '/networks');
  if (wanted) {
    const match = networks.find((n) => n.id === wanted || n.name === wanted);
    if (!match) throw new DriverError('invalid', `OPENSTACK_NETWORK=${wanted}: no such network in the project`);
    return match.id;
  }
  const project = await client.projectId();
  const own = networks.filter((n) => !n['router:external'] && n.project_id === project);
  if (own.length !== 1) throw new DriverError('invalid', `the project has ${own.length} networks: set OPENSTACK_NETWORK to the one servers go on`);
  return own[0].id;
}

function observed(server: NovaServer): ObservedInstance {
  const deleting = server['OS-EXT-STS:task_state'] === 'deleting';
  const running = !deleting && (server.status === 'ACTIVE' || server.status === 'BUILD');
  return {
    running,
    ready: running && server.status === 'ACTIVE',
    limits: server.flavor ? limitsOf({ name: server.flavor.original_name ?? '?', vcpus: server.flavor.vcpus ?? 0, ram: server.flavor.ram ?? 0 }) : 'Nova flavor',
    // Nova's hostId: the same for servers on one host, opaque otherwise (what anti-affinity is judged by).
    host: server.hostId || undefined,
  };
}

function limitsOf(flavor: { name: string; vcpus: number; ram: number }): string {
  return `Nova flavor ${flavor.name}: ${flavor.vcpus} vCPU, ${flavor.ram} MiB`;
}
