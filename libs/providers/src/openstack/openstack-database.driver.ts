import { DatabaseEngine } from '@stratus/core';
import { DatabaseDriver, DatabaseServerSpec, ObservedDatabaseServer } from '../databases.driver';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { readyLine, renderDatabaseCloudInit, unsupported, VERIFIER_METADATA_KEY } from './openstack-database.cloud-init';
import { engineAnswers } from './openstack-database.probe';
import { OpenStackError } from './openstack-errors';
import { MARK, NovaServer, serverOf, serversOf, until } from './openstack-resources';

export interface OpenStackDatabaseOptions {
  /** The Debian 12 image (name or id) database servers boot from. */
  image: string;
  /** The Nova flavor (name or id) of a database server; empty: the smallest with at least 1 vCPU and 1 GiB. */
  flavor: string;
  /**
   * Whether the control plane reaches the servers' addresses. On a real
   * cloud it does, and `ready` means the engine answers there and the
   * server reported the verifier in force. false is a simulation, for a
   * cloud without a data path (Nova's fake virt driver boots nothing):
   * `ready` is then Nova's ACTIVE with the verifier in the metadata alone.
   */
  dataPath: boolean;
  /** A server still in BUILD this long after its create is failed (and removed). */
  bootTimeoutMs: number;
  /** How long a delete waits for Nova to let the server go. */
  deleteWaitMs?: number;
}

/** Nova metadata key of where the engine listens (`<address> <port>`), for a look that has no spec. */
const ENDPOINT_METADATA_KEY = 'stratus_endpoint';

/** Nova metadata key set once the server was first ready: from then on a failure keeps its disk. */
const STARTED_METADATA_KEY = 'stratus_started';

/** The smallest flavor a database server gets when none is named. */
const MIN_RAM_MB = 1024;

interface NovaFlavor {
  id: string;
  name: string;
  vcpus: number;
  ram: number;
}

/**
 * Managed databases as Nova servers, one per server key, booted on the
 * Neutron port the network driver made for the key (so on the spec's
 * address) with a cloud-init that installs and configures the engine
 * (openstack-database.cloud-init.ts). A create looks first, by the key's
 * tag and metadata, so a retried job never boots a second server. The
 * credential travels as a verifier only: in user_data at boot, and in the
 * server's `stratus_verifier` metadata item, which the server polls through
 * the metadata service, for a reset.
 */
export class OpenStackDatabaseDriver implements DatabaseDriver {
  private flavorId: string | null = null;
  private imageId: string | null = null;

  constructor(
    private readonly client: OpenStackClient,
    private readonly opts: OpenStackDatabaseOptions,
  ) {}

  async observe(key: string): Promise<ObservedDatabaseServer | null> {
    const server = await serverOf(this.client, key);
    if (!server) return null;
    if (server.status === 'ERROR') return { running: false, ready: false, step: `Nova put the server in ERROR: ${await this.faultOf(server)}` };
    if (!isUp(server)) return { running: server.status === 'BUILD', ready: false };
    return { running: true, ready: await this.readyWith(server, server.metadata?.[VERIFIER_METADATA_KEY] ?? '') };
  }

  async ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    // What cannot be built is refused before anything is made.
    const refused = unsupported(spec);
    if (refused) throw new DriverError('invalid', refused);
    const existing = await serverOf(this.client, spec.key);
    if (!existing) {
      await this.boot(spec);
      return { running: true, ready: false, step: `booting the server of ${spec.key}` };
    }
    if (existing.status === 'ERROR') {
      const fault = await this.faultOf(existing);
      // One that served once keeps its disk (the data) for the operator to recover; one that never came up goes.
      if (existing.metadata?.[STARTED_METADATA_KEY]) throw new DriverError('invalid', `database server ${spec.key} failed: Nova put it in ERROR: ${fault}`);
      await this.delete(spec.key);
      throw new DriverError('invalid', `database server ${spec.key} exited while starting: Nova put it in ERROR: ${fault}`);
    }
    if (existing.status === 'BUILD') {
      if (Date.parse(existing.created) + this.opts.bootTimeoutMs < Date.now()) {
        await this.delete(spec.key);
        throw new DriverError('invalid', `database server ${spec.key} exited while starting: not booted within ${this.opts.bootTimeoutMs} ms (Nova kept it in BUILD)`);
      }
      return { running: true, ready: false };
    }
    if (existing['OS-EXT-STS:task_state'] === 'deleting') return { running: false, ready: false };
    if (existing.status === 'SHUTOFF') {
      // Stopped outside the control plane: its disk holds the data, so it is started again, not rebuilt.
      await this.client.post('compute', `/servers/${existing.id}/action`, { 'os-start': null });
      return { running: false, ready: false, step: `starting the stopped server of ${spec.key}` };
    }
    if (existing.metadata?.[VERIFIER_METADATA_KEY] !== spec.passwordVerifier) {
      // A reset: the server applies the verifier it finds here (its timer reads the metadata service).
      await this.client.put('compute', `/servers/${existing.id}/metadata/${VERIFIER_METADATA_KEY}`, { meta: { [VERIFIER_METADATA_KEY]: spec.passwordVerifier } });
      existing.metadata = { ...existing.metadata, [VERIFIER_METADATA_KEY]: spec.passwordVerifier };
    }
    const ready = isUp(existing) && (await this.readyWith(existing, spec.passwordVerifier));
    if (ready && !existing.metadata?.[STARTED_METADATA_KEY]) {
      await this.client.put('compute', `/servers/${existing.id}/metadata/${STARTED_METADATA_KEY}`, { meta: { [STARTED_METADATA_KEY]: new Date().toISOString() } });
    }
    if (isUp(existing) && !ready) return { running: true, ready, step: `installing and configuring ${spec.engine} on the server (cloud-init)` };
    return { running: isUp(existing), ready };
  }

  async delete(key: string): Promise<void> {
    for (const server of await serversOf(this.client, key)) await this.client.delete('compute', `/servers/${server.id}`);
    // Gone for Nova before the call returns: the next observe says null, and the port is free to go.
    await until(`database server ${key} to be deleted`, async () => (await serversOf(this.client, key)).length === 0, this.opts.deleteWaitMs ?? 60_000);
  }

  private async boot(spec: DatabaseServerSpec): Promise<void> {
    const userData = renderDatabaseCloudInit(spec);
    const server = {
      name: MARK.name(spec.key),
      imageRef: await this.image(),
      flavorRef: await this.flavor(),
      networks: [{ port: await this.portOf(spec) }],
      metadata: { [MARK.idKey]: spec.key, [VERIFIER_METADATA_KEY]: spec.passwordVerifier, [ENDPOINT_METADATA_KEY]: `${spec.address} ${spec.port}` },
      tags: [MARK.managedTag, MARK.idTag(spec.key)],
      user_data: Buffer.from(userData, 'utf8').toString('base64'),
    };
    try {
      await this.client.post('compute', '/servers', { server });
    } catch (err) {
      // Nova answers 400 for an image or flavor it does not have, 409 for a port in use: the spec cannot boot, say why.
      if (err instanceof OpenStackError && (err.status === 400 || err.status === 409)) throw new DriverError('invalid', `boot of ${spec.key} failed: ${err.message}`);
      throw err;
    }
  }

  /**
   * Ready with `verifier`. Without a data path (a simulation) the server's
   * ACTIVE and the verifier in its metadata are all there is to go by; with
   * one, the engine must answer on its address and the server must have
   * said on its console that it took this verifier.
   */
  private async readyWith(server: NovaServer, verifier: string): Promise<boolean> {
    if (!this.opts.dataPath) return server.metadata?.[VERIFIER_METADATA_KEY] === verifier;
    const endpoint = endpointOf(server);
    if (!endpoint || !(await engineAnswers(endpoint.engine, endpoint.address, endpoint.port))) return false;
    const { output } = await this.client.post<{ output: string }>('compute', `/servers/${server.id}/action`, { 'os-getConsoleOutput': { length: 200 } });
    const lines = output.split('\n').filter((l) => l.startsWith('stratus: ready '));
    return lines.length > 0 && lines[lines.length - 1].trim() === readyLine(verifier);
  }

  /** The port the network driver made for the key, which holds the spec's address. */
  private async portOf(spec: DatabaseServerSpec): Promise<string> {
    const { ports } = await this.client.get<{ ports: Array<{ id: string; fixed_ips: Array<{ ip_address: string }> }> }>('network', '/ports', {
      query: { name: MARK.name(spec.key) },
    });
    const port = ports.find((p) => p.fixed_ips.some((ip) => ip.ip_address === spec.address));
    if (!port) throw new DriverError('invalid', `no port of ${spec.key} holds its address ${spec.address}`);
    return port.id;
  }

  private async image(): Promise<string> {
    if (this.imageId) return this.imageId;
    const { images } = await this.client.get<{ images: Array<{ id: string; name: string }> }>('image', '/images', { query: { limit: 1000 } });
    const match = images.find((i) => i.id === this.opts.image) ?? images.find((i) => i.name === this.opts.image);
    if (!match) throw new DriverError('invalid', `OPENSTACK_DATABASE_IMAGE=${this.opts.image}: no such image in the project`);
    return (this.imageId = match.id);
  }

  private async flavor(): Promise<string> {
    if (this.flavorId) return this.flavorId;
    const { flavors } = await this.client.get<{ flavors: NovaFlavor[] }>('compute', '/flavors/detail');
    const match = this.opts.flavor
      ? flavors.find((f) => f.id === this.opts.flavor || f.name === this.opts.flavor)
      : flavors.filter((f) => f.vcpus >= 1 && f.ram >= MIN_RAM_MB).sort((a, b) => a.vcpus - b.vcpus || a.ram - b.ram)[0];
    if (!match)
      throw new DriverError(
        'invalid',
        this.opts.flavor ? `OPENSTACK_DATABASE_FLAVOR=${this.opts.flavor}: no such flavor` : `no Nova flavor has ${MIN_RAM_MB} MiB for a database server`,
      );
    return (this.flavorId = match.id);
  }

  /** Nova's list leaves the fault out for a server that never left cell0 (no host found): the server itself has it. */
  private async faultOf(server: NovaServer): Promise<string> {
    const fault = server.fault ?? (await this.client.get<{ server: NovaServer }>('compute', `/servers/${server.id}`)).server.fault;
    return fault?.message?.trim() || 'no fault given';
  }
}

function isUp(server: NovaServer): boolean {
  return server.status === 'ACTIVE' && server['OS-EXT-STS:task_state'] !== 'deleting';
}

/** Where the engine of a server answers, from what it was booted with: `<engine>-<id>` keys, the endpoint in the metadata. */
function endpointOf(server: NovaServer): { engine: DatabaseEngine; address: string; port: number } | null {
  const engine = (server.metadata?.[MARK.idKey] ?? '').split('-')[0] as DatabaseEngine;
  const [address, port] = (server.metadata?.[ENDPOINT_METADATA_KEY] ?? '').split(' ');
  return address && Number(port) > 0 ? { engine, address, port: Number(port) } : null;
}
