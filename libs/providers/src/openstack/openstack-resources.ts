import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../driver-error';
import { OpenStackClient } from './openstack-client';
import { OpenStackError } from './openstack-errors';

/**
 * How the provider marks what it makes, so a repeat finds it before it
 * makes another: the name says whose it is, the metadata (or Nova tag)
 * carries the resource id, and only both together count.
 */
export const MARK = {
  /** Metadata key (Nova, Cinder, Glance properties) holding the Stratus resource id. */
  idKey: 'stratus_id',
  /** Nova tag on every server the provider makes: one list call finds them all. */
  managedTag: 'stratus',
  /** Nova tag carrying the resource id (tags may not hold `/` or `,`; at most 60 characters). */
  idTag: (id: string) => `stratus-id:${id}`,
  name: (id: string) => `stratus-${id}`,
  /** Name and tag of what the provider makes for an address rather than a resource (an Octavia load balancer, its VIP). */
  addressName: (address: string) => `stratus-address-${address}`,
  addressTag: (address: string) => `stratus-address:${address}`,
};

export interface NovaServer {
  id: string;
  name: string;
  status: string;
  created: string;
  hostId?: string;
  metadata?: Record<string, string>;
  fault?: { code: number; message: string; details?: string };
  flavor?: { original_name?: string; vcpus?: number; ram?: number };
  addresses?: Record<string, Array<{ addr: string; version: number }>>;
  'OS-EXT-STS:task_state'?: string | null;
}

/**
 * Of several copies of one resource (two runs of a job that both looked
 * and found nothing), the one that stays: the oldest, then the smallest id,
 * so every run picks the same one.
 */
export function keeper<T extends { id: string }>(items: T[], created: (t: T) => string): T {
  return [...items].sort((a, b) => created(a).localeCompare(created(b)) || a.id.localeCompare(b.id))[0];
}

/** The servers the provider made for this resource id, deleted ones aside. */
export async function serversOf(client: OpenStackClient, id: string): Promise<NovaServer[]> {
  const { servers } = await client.get<{ servers: NovaServer[] }>('compute', '/servers/detail', { query: { tags: MARK.idTag(id) } });
  return servers.filter((s) => s.metadata?.[MARK.idKey] === id && s.status !== 'DELETED');
}

/**
 * The Neutron ports named for this resource id: its own port, and copies a
 * racing repeat made until the network driver deletes them. `P` is what the
 * caller reads of a port.
 */
export async function portsOf<P extends { name: string }>(client: OpenStackClient, id: string): Promise<P[]> {
  const name = MARK.name(id);
  const { ports } = await client.get<{ ports: P[] }>('network', '/ports', { query: { name } });
  return ports.filter((p) => p.name === name);
}

/**
 * The server of a resource id, or null; extra copies left by a racing
 * repeat are deleted here. Racing runs boot copies on a network, each with
 * a port Nova makes for it; on the resource's own port only one run boots
 * (bootOnPort), unless a claim was taken over from a run that was only
 * slow. For such copies on one port, one that is not in ERROR is kept: the
 * copy that comes second to the port fails on the host; and where both came
 * up (each host took the port before it saw the other), the one the port
 * names is kept. Deleting the other unbinds the port all the same (Nova
 * unbinds the ports a deleted server's cache lists), which is why the
 * claim exists.
 */
export async function serverOf(client: OpenStackClient, id: string): Promise<NovaServer | null> {
  const servers = await serversOf(client, id);
  if (servers.length <= 1) return servers[0] ?? null;
  const booted = servers.filter((s) => s.status !== 'ERROR');
  const oldest = keeper(booted.length ? booted : servers, (s) => s.created);
  // Copies two racing runs booted on one port: which build wins the port is known only once none builds (the other goes to
  // ERROR). Deleting one earlier may delete the winner, and leave the loser to fail: the copies stay until they settle.
  if (servers.some((s) => s.status === 'BUILD')) return oldest;
  const port = (await portsOf<{ id: string; name: string; device_id: string }>(client, id)).find((p) => servers.some((s) => s.id === p.device_id));
  const holder = servers.find((s) => s.id === port?.device_id);
  const kept = holder && holder.status !== 'ERROR' ? holder : oldest;
  if (port && holder && holder.id !== kept.id) await client.put('network', `/ports/${port.id}`, { port: { device_id: kept.id } });
  for (const extra of servers) if (extra.id !== kept.id) await client.delete('compute', `/servers/${extra.id}`);
  return kept;
}

/**
 * Boots a resource's server on its port (`boot`, a POST /servers naming
 * it) unless another run of the job is doing so; false when one is.
 *
 * Two runs that each look and find no server would otherwise both boot on
 * the port: Nova's API takes both, and whichever copy serverOf later
 * deletes, Nova unbinds the port as it deletes it (every port it did not
 * make that the copy's network cache lists, whichever server the port
 * names by then), so the server kept would lose its address. So a run
 * first claims the port with Neutron's compare-and-set (the port's
 * description, written under `If-Match` on the revision it read): of runs
 * racing, one writes; the others see the claim, or a 412, and answer that
 * the server is booting, which their next look finds. A claim older than
 * BOOT_CLAIM_MS is taken over (its run died before it booted); a boot
 * Nova refuses gives the claim back, so a repeat says why at once.
 */
export async function bootOnPort(client: OpenStackClient, portId: string, boot: () => Promise<void>): Promise<boolean> {
  const { port } = await client.get<{ port: { description?: string; revision_number: number } }>('network', `/ports/${portId}`);
  const description = port.description ?? '';
  const claim = BOOT_CLAIM.exec(description);
  if (claim && Date.now() - Date.parse(claim[1]) < BOOT_CLAIM_MS) return false;
  const unclaimed = description.replace(BOOT_CLAIM, '');
  try {
    await client.put(
      'network',
      `/ports/${portId}`,
      { port: { description: `${unclaimed}; boot claimed ${new Date().toISOString()}` } },
      { headers: { 'If-Match': `revision_number=${port.revision_number}` } },
    );
  } catch (err) {
    if (err instanceof OpenStackError && err.status === 412) return false;
    throw err;
  }
  try {
    await boot();
  } catch (err) {
    await client.put('network', `/ports/${portId}`, { port: { description: unclaimed } }).catch(() => undefined);
    throw err;
  }
  return true;
}

/** How a claim reads at the end of the port's description. */
const BOOT_CLAIM = /; boot claimed (\S+)$/;

/** How long a claim holds: far longer than a run takes from its claim to Nova's answer to its boot. */
const BOOT_CLAIM_MS = 120_000;

/** Polls `look` until it answers non-null/true, for at most `timeoutMs`; then a retryable error that says what was awaited. */
export async function until<T>(what: string, look: () => Promise<T | null | false>, timeoutMs: number, intervalMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await look();
    if (seen) return seen;
    if (Date.now() > deadline) throw new DriverError('retryable', `${what}: still waiting after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(intervalMs);
  }
}

/** What `get` answers, or null when the cloud answers 404 (the object is not there, or no longer). */
export async function foundOrNull<T>(get: () => Promise<T>): Promise<T | null> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof OpenStackError && err.status === 404) return null;
    throw err;
  }
}

interface NovaServerGroup {
  id: string;
  name: string;
}

/** Nova's server groups of this name (two processes racing may each have made one). */
export async function serverGroupsNamed(client: OpenStackClient, name: string): Promise<NovaServerGroup[]> {
  const { server_groups } = await client.get<{ server_groups: NovaServerGroup[] }>('compute', '/os-server-groups', { query: { limit: 1000 } });
  return server_groups.filter((g) => g.name === name);
}

/** The server group of this name, made with `policy` when there is none; of several, every caller takes the lowest id. */
export async function findOrMakeServerGroup(client: OpenStackClient, name: string, policy: 'soft-anti-affinity'): Promise<string> {
  let found = await serverGroupsNamed(client, name);
  if (found.length === 0) {
    await client.post('compute', '/os-server-groups', { server_group: { name, policy } });
    found = await serverGroupsNamed(client, name);
  }
  return found.map((g) => g.id).sort()[0];
}

/** Every server group of this name goes; none: fine. */
export async function removeServerGroups(client: OpenStackClient, name: string): Promise<void> {
  for (const found of await serverGroupsNamed(client, name)) {
    await foundOrNull(() => client.delete('compute', `/os-server-groups/${found.id}`));
  }
}
