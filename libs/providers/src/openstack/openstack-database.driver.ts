import { DatabaseEngine, HA_MEMBERS, memberKeyOf } from '@stratus/core';
import { createHmac } from 'node:crypto';
import { DatabaseDriver, DatabaseServerSpec, HA_POSTGRES_CHECK, haListenerId, keepHaListener, ObservedDatabaseMember, ObservedDatabaseServer } from '../databases.driver';
import { DriverError } from '../driver-error';
import { LoadBalancerDriver } from '../load-balancer.driver';
import { patroniMemberRuns, patroniView } from '../patroni';
import { OpenStackClient } from './openstack-client';
import { HaMemberSecrets, readyLine, renderDatabaseCloudInit, renderHaMemberCloudInit, unsupported, VERIFIER_METADATA_KEY } from './openstack-database.cloud-init';
import { joinMemberGroup, keepMemberGroup, removeMemberGroup, settleMemberPorts } from './openstack-database.member-group';
import { engineAnswers } from './openstack-database.probe';
import { OpenStackError } from './openstack-errors';
import { bootOnPort, findOrMakeServerGroup, MARK, NovaServer, removeServerGroups, serverOf, serversOf, until } from './openstack-resources';

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
  /**
   * The installation's key the secrets an ha database's members share are
   * derived from (haMemberSecrets), read when a member is first booted;
   * absent: ha is refused.
   */
  haKey?: () => string;
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
 *
 * An ha PostgreSQL is three such servers, one per member address, each on
 * its member's port and keyed by its member key (memberKeyOf), in one Nova
 * server group, running etcd and Patroni (renderHaMemberCloudInit), behind
 * a listener of the load-balancer driver on the database's address that
 * sends connections to the member whose Patroni says it is the primary.
 */
export class OpenStackDatabaseDriver implements DatabaseDriver {
  private flavorId: string | null = null;
  private imageId: string | null = null;

  constructor(
    private readonly client: OpenStackClient,
    private readonly opts: OpenStackDatabaseOptions,
    /** The listener in front of an ha database's members; null: ha is refused. */
    private readonly balancer: LoadBalancerDriver | null = null,
  ) {}

  async observe(key: string): Promise<ObservedDatabaseServer | null> {
    const server = await serverOf(this.client, key);
    if (!server) return this.observeHa(key);
    if (server.status === 'ERROR') return { running: false, ready: false, step: `Nova put the server in ERROR: ${await this.faultOf(server)}` };
    if (!isUp(server)) return { running: server.status === 'BUILD', ready: false };
    return { running: true, ready: await this.readyWith(server, server.metadata?.[VERIFIER_METADATA_KEY] ?? '') };
  }

  async ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    // What cannot be built is refused before anything is made.
    const refused = unsupported(spec);
    if (refused) throw new DriverError('invalid', refused);
    if (spec.ha) return this.ensureHa(spec);
    const existing = await serverOf(this.client, spec.key);
    if (!existing) {
      await this.boot(spec, { key: spec.key, address: spec.address, userData: renderDatabaseCloudInit(spec) });
      return { running: true, ready: false, step: `booting the server of ${spec.key}` };
    }
    await this.failIfBroken(spec.key, [existing]);
    if (existing.status === 'BUILD') return { running: true, ready: false };
    if (existing['OS-EXT-STS:task_state'] === 'deleting') return { running: false, ready: false };
    if (await this.startIfStopped(existing)) return { running: false, ready: false, step: `starting the stopped server of ${spec.key}` };
    await this.keepVerifier(existing, spec.passwordVerifier);
    const ready = isUp(existing) && (await this.readyWith(existing, spec.passwordVerifier));
    if (ready) await this.markStarted(existing);
    if (isUp(existing) && !ready) return { running: true, ready, step: `installing and configuring ${spec.engine} on the server (cloud-init)` };
    return { running: isUp(existing), ready };
  }

  /** The server, or an ha database's members, its listener and server group. */
  async delete(key: string): Promise<void> {
    await this.balancer?.deleteListener(haListenerId(key));
    const keys = [key, ...Array.from({ length: HA_MEMBERS }, (_, n) => memberKeyOf(key, n))];
    for (const k of keys) for (const server of await serversOf(this.client, k)) await this.client.delete('compute', `/servers/${server.id}`);
    // Gone for Nova before the call returns: the next observe says null, and the ports are free to go.
    await until(
      `database server ${key} to be deleted`,
      async () => (await Promise.all(keys.map((k) => serversOf(this.client, k)))).every((servers) => servers.length === 0),
      this.opts.deleteWaitMs ?? 60_000,
    );
    await removeServerGroups(this.client, serverGroupName(key));
    await removeMemberGroup(this.client, key, keys.slice(1));
  }

  /**
   * An ha PostgreSQL: the members missing are booted in the server group
   * (none twice: each is looked for by its member key first), the listener
   * is kept, and each member is tended as a single server is (started when
   * stopped, given the verifier in force); ready once all three are and
   * the listener exists.
   */
  private async ensureHa(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    const balancer = this.balancer;
    const haKey = this.opts.haKey;
    if (!balancer || !haKey)
      throw new DriverError('invalid', "high availability (ha: true) needs the load balancer and the installation's ha key, which this worker does not have");
    const keys = spec.memberAddresses.map((_, n) => memberKeyOf(spec.key, n));
    const found = await Promise.all(keys.map((k) => serverOf(this.client, k)));
    const existing = found.filter((m): m is NovaServer => m !== null);
    await this.failIfBroken(spec.key, existing);
    const missing = keys.flatMap((k, n) => (found[n] ? [] : [n]));
    // Made before any member boots: a member's port is in it before its etcd listens (openstack-database.member-group.ts).
    const securityGroup = await keepMemberGroup(this.client, spec);
    if (missing.length) {
      const secrets = haMemberSecrets(haKey(), spec.key);
      const userData = missing.map((n) => renderHaMemberCloudInit(spec, n, secrets));
      // Soft: members go to different hosts where the cloud has them, and a cloud of one hypervisor still boots all three.
      const group = await findOrMakeServerGroup(this.client, serverGroupName(spec.key), 'soft-anti-affinity');
      for (const [i, n] of missing.entries())
        await this.boot(spec, { key: keys[n], address: spec.memberAddresses[n], userData: userData[i], group, securityGroup: securityGroup.id });
    }
    // On every ensure, booted or not: a racing run that saw only its own copy of the group may have put members in it.
    await settleMemberPorts(this.client, keys, securityGroup);
    await keepHaListener(balancer, spec, HA_POSTGRES_CHECK);
    if (missing.length) return { running: true, ready: false, step: `booting ${missing.length} of the ${HA_MEMBERS} servers of ${spec.key}` };
    const members = found as NovaServer[];
    if (members.some((m) => m['OS-EXT-STS:task_state'] === 'deleting')) return { running: false, ready: false };
    for (const m of members) if (await this.startIfStopped(m)) return { running: false, ready: false, step: `starting the stopped servers of ${spec.key}` };
    const up = members.every(isUp);
    if (up) for (const m of members) await this.keepVerifier(m, spec.passwordVerifier);
    const ready = up && (await this.haReady(spec.key, members, () => spec.passwordVerifier));
    if (ready) for (const m of members) await this.markStarted(m);
    const view = await this.memberView(spec.memberAddresses, members);
    const step = up && !ready ? `installing and configuring PostgreSQL, Patroni and etcd on the ${HA_MEMBERS} servers (cloud-init)` : undefined;
    return { running: up || members.some((m) => m.status === 'BUILD'), ready, ...(step ? { step } : {}), ...view };
  }

  /** What is of an ha database (its members, its listener); null when nothing is. */
  private async observeHa(key: string): Promise<ObservedDatabaseServer | null> {
    const found = await Promise.all(Array.from({ length: HA_MEMBERS }, (_, n) => serverOf(this.client, memberKeyOf(key, n))));
    const members = found.filter((m): m is NovaServer => m !== null);
    const listener = this.balancer ? await this.balancer.observe(haListenerId(key)) : null;
    if (members.length === 0 && !listener) return null;
    const failed = members.find((m) => m.status === 'ERROR');
    if (failed) return { running: false, ready: false, step: `Nova put ${failed.name} in ERROR: ${await this.faultOf(failed)}` };
    const whole = members.length === HA_MEMBERS && members.every(isUp);
    const ready = whole && (await this.haReady(key, members, (m) => m.metadata?.[VERIFIER_METADATA_KEY] ?? ''));
    const addresses = found.map((m) => endpointOf(m)?.member ?? '');
    return { running: members.some((m) => isUp(m) || m.status === 'BUILD'), ready, ...(await this.memberView(addresses, found)) };
  }

  /** Every member is ready with its verifier and the listener in front of them exists. */
  private async haReady(key: string, members: NovaServer[], verifier: (m: NovaServer) => string): Promise<boolean> {
    if (!(await this.balancer?.observe(haListenerId(key)))) return false;
    return (await Promise.all(members.map((m) => this.readyWith(m, verifier(m))))).every(Boolean);
  }

  /**
   * The members as the row shows them, in member order. With a data path,
   * Patroni's view (patroniView): which is the primary, how far each
   * replica is behind, and whether replication is whole. Without one (the
   * testbed's simulation) no Patroni can be asked, and Nova cannot say
   * which member leads: each is reported as a replica whose health is
   * Nova's (ACTIVE: up), rather than one guessed to be the primary.
   */
  private async memberView(addresses: string[], found: Array<NovaServer | null>): Promise<Pick<ObservedDatabaseServer, 'members' | 'degraded'>> {
    const view = this.opts.dataPath ? await patroniView(addresses) : null;
    const listed = view?.listed ?? [];
    const members = addresses.map((address, n): ObservedDatabaseMember => {
      const server = found[n];
      const patroni = listed.find((l) => l.name === `member-${n}`);
      const running = !this.opts.dataPath || (!!patroni && patroniMemberRuns(patroni));
      const lag = patroni && patroni.role !== 'leader' && typeof patroni.lag === 'number' ? { value: patroni.lag, unit: 'bytes' as const } : null;
      return { address, role: patroni?.role === 'leader' ? 'primary' : 'replica', health: server && isUp(server) && running ? 'up' : 'down', lag };
    });
    return { members, degraded: members.some((m) => m.health === 'down') || (view !== null && !view.whole) };
  }

  /**
   * A server of the key in ERROR, or still in BUILD past the boot timeout:
   * a terminal error. One that served once keeps its disk (the data) for
   * the operator to recover; one that never came up goes, with every other
   * server of the key.
   */
  private async failIfBroken(key: string, servers: NovaServer[]): Promise<void> {
    for (const server of servers) {
      const failure =
        server.status === 'ERROR'
          ? `Nova put it in ERROR: ${await this.faultOf(server)}`
          : server.status === 'BUILD' && Date.parse(server.created) + this.opts.bootTimeoutMs < Date.now()
            ? `not booted within ${this.opts.bootTimeoutMs} ms (Nova kept it in BUILD)`
            : null;
      if (!failure) continue;
      const which = servers.length > 1 || server.metadata?.[MARK.idKey] !== key ? `${server.name}: ` : '';
      if (server.status === 'ERROR' && servers.some((s) => s.metadata?.[STARTED_METADATA_KEY]))
        throw new DriverError('invalid', `database server ${key} failed: ${which}${failure}`);
      await this.delete(key);
      throw new DriverError('invalid', `database server ${key} exited while starting: ${which}${failure}`);
    }
  }

  /** Stopped outside the control plane: its disk holds the data, so it is started again, not rebuilt. */
  private async startIfStopped(server: NovaServer): Promise<boolean> {
    if (server.status !== 'SHUTOFF') return false;
    await this.client.post('compute', `/servers/${server.id}/action`, { 'os-start': null });
    return true;
  }

  /** A reset: the server applies the verifier it finds here (its timer reads the metadata service). */
  private async keepVerifier(server: NovaServer, verifier: string): Promise<void> {
    if (server.metadata?.[VERIFIER_METADATA_KEY] === verifier) return;
    await this.client.put('compute', `/servers/${server.id}/metadata/${VERIFIER_METADATA_KEY}`, { meta: { [VERIFIER_METADATA_KEY]: verifier } });
    server.metadata = { ...server.metadata, [VERIFIER_METADATA_KEY]: verifier };
  }

  private async markStarted(server: NovaServer): Promise<void> {
    if (server.metadata?.[STARTED_METADATA_KEY]) return;
    await this.client.put('compute', `/servers/${server.id}/metadata/${STARTED_METADATA_KEY}`, { meta: { [STARTED_METADATA_KEY]: new Date().toISOString() } });
  }

  /**
   * Boots the server of `key` on the port that holds `address`. Its
   * endpoint is where its database answers: a member's is the database's
   * address (the listener), and its own address rides along for a look
   * that has no spec.
   */
  private async boot(spec: DatabaseServerSpec, target: { key: string; address: string; userData: string; group?: string; securityGroup?: string }): Promise<void> {
    const endpoint = `${spec.address} ${spec.port}${target.key === spec.key ? '' : ` ${target.address}`}`;
    const port = await this.portOf(target.key, target.address);
    // Nova takes a port's groups as they are (its security_groups apply to ports it makes): set on the port itself.
    if (target.securityGroup) await joinMemberGroup(this.client, port, target.securityGroup);
    const server = {
      name: MARK.name(target.key),
      imageRef: await this.image(),
      flavorRef: await this.flavor(),
      networks: [{ port }],
      metadata: { [MARK.idKey]: target.key, [VERIFIER_METADATA_KEY]: spec.passwordVerifier, [ENDPOINT_METADATA_KEY]: endpoint },
      tags: [MARK.managedTag, MARK.idTag(target.key)],
      user_data: Buffer.from(target.userData, 'utf8').toString('base64'),
    };
    const hints = target.group ? { 'os:scheduler_hints': { group: target.group } } : {};
    // Unless another run is booting on the port (then its server is the one).
    await bootOnPort(this.client, port, async () => {
      try {
        await this.client.post('compute', '/servers', { server, ...hints });
      } catch (err) {
        // A port in use by the key's own server is another run's boot that came first: that one is the server.
        if (err instanceof OpenStackError && err.status === 409 && (await serversOf(this.client, target.key)).length > 0) return;
        // Nova answers 400 for an image or flavor it does not have, 409 for a port in use: the spec cannot boot, say why.
        if (err instanceof OpenStackError && (err.status === 400 || err.status === 409)) throw new DriverError('invalid', `boot of ${target.key} failed: ${err.message}`);
        throw err;
      }
    });
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

  /** The port the network driver made for the key (a member's for its member key), which holds its address. */
  private async portOf(key: string, address: string): Promise<string> {
    const { ports } = await this.client.get<{ ports: Array<{ id: string; fixed_ips: Array<{ ip_address: string }> }> }>('network', '/ports', {
      query: { name: MARK.name(key) },
    });
    const port = ports.find((p) => p.fixed_ips.some((ip) => ip.ip_address === address));
    if (!port) throw new DriverError('invalid', `no port of ${key} holds its address ${address}`);
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

/** Where the engine of a server answers (and a member's own address), from what it was booted with: `<engine>-<id>` keys, the endpoint in the metadata. */
function endpointOf(server: NovaServer | null): { engine: DatabaseEngine; address: string; port: number; member: string | null } | null {
  const engine = (server?.metadata?.[MARK.idKey] ?? '').split('-')[0] as DatabaseEngine;
  const [address, port, member] = (server?.metadata?.[ENDPOINT_METADATA_KEY] ?? '').split(' ');
  return address && Number(port) > 0 ? { engine, address, port: Number(port), member: member ?? null } : null;
}

/** The Nova server group of an ha database's members. */
function serverGroupName(key: string): string {
  return MARK.name(`group-${key}`);
}

/**
 * The secrets an ha database's members share (Patroni's superuser,
 * replication, rewind and REST API credentials), derived rather than
 * stored: HMAC-SHA256 of the database key under the installation's ha
 * key. A retried boot of one member, by another job or worker, renders the
 * very values the members already booted hold, and no row, job payload or
 * log of the control plane ever carries them.
 */
export function haMemberSecrets(haKey: string, key: string): HaMemberSecrets {
  const derive = (purpose: string) => createHmac('sha256', haKey).update(`stratus ha member ${purpose}\0${key}`).digest('base64url');
  return { superuser: derive('superuser'), replication: derive('replication'), rewind: derive('rewind'), restApi: derive('rest-api') };
}
