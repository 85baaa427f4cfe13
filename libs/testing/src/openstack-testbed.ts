import { AppConfig, databaseMemberKey, databaseServerKey, DatabaseEngine, HA_MEMBERS } from '@stratus/core';
import {
  MARK,
  NovaServer,
  OpenStackClient,
  OpenStackClientOptions,
  OpenStackCloud,
  OpenStackComputeDriver,
  OpenStackDatabaseDriver,
  OpenStackError,
  OpenStackLoadBalancerDriver,
  OpenStackNetworkDriver,
  OpenStackVolumeDriver,
  resolveCloud,
  serversOf,
} from '@stratus/providers';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from './test-env';
import { waitFor } from './wait';

/** A function, not a constant: test-env imports this module, and REPO_ROOT is set once both are loaded. */
const script = () => join(REPO_ROOT, 'scripts/openstack-testbed/testbed.sh');
let stateDir: string | undefined;

/** The testbed's state folder (its clouds.yaml), the host's one, as the script says. */
export function testbedDir(): string {
  stateDir ??= execFileSync('bash', [script(), 'dir'], { encoding: 'utf8' }).trim();
  return stateDir;
}

/** Every OS_* setting empty: what AppConfig holds when none is set. */
const UNSET: Parameters<typeof resolveCloud>[0] = {
  OS_CLOUD: '',
  OS_CLIENT_CONFIG_FILE: '',
  OS_AUTH_URL: '',
  OS_AUTH_TYPE: '',
  OS_USERNAME: '',
  OS_USER_ID: '',
  OS_PASSWORD: '',
  OS_PROJECT_NAME: '',
  OS_PROJECT_ID: '',
  OS_USER_DOMAIN_NAME: '',
  OS_PROJECT_DOMAIN_NAME: '',
  OS_REGION_NAME: '',
  OS_INTERFACE: '',
  OS_APPLICATION_CREDENTIAL_ID: '',
  OS_APPLICATION_CREDENTIAL_NAME: '',
  OS_APPLICATION_CREDENTIAL_SECRET: '',
};

/** The testbed's tenant network (scripts/openstack-testbed/seed.py), where servers go. */
export const TESTBED_NETWORK = 'stratus-net';
/** Its subnet: Neutron gives .2-.199 to ports; .200-.254 are left for VIPs that tests name (seed.py). */
const TESTBED_SUBNET = '10.0.0.0/24';

/** The id of the testbed's tenant network, where the network driver makes the ports of tests. */
export async function testbedNetworkId(client: OpenStackClient): Promise<string> {
  const { networks } = await client.get<{ networks: Array<{ id: string }> }>('network', '/networks', { query: { name: TESTBED_NETWORK } });
  return networks[0].id;
}

/**
 * Where the gateway's routes and the proxy hosts' HTTP listener listen on
 * the testbed (Octavia VIPs: GATEWAY_HOST, EDGE_HTTP_HOST), and the network
 * route targets are in: two addresses of the subnet that Neutron gives no
 * port, of this slot and installation (the e2e suites' `0`, the os-specs'
 * `1`), so runs beside each other hold load balancers of their own.
 */
export function testbedGatewaySettings(installation: 0 | 1 = 0): Pick<Record<keyof AppConfig, string>, 'GATEWAY_HOST' | 'EDGE_HTTP_HOST' | 'GATEWAY_ALLOWED_NETWORKS'> {
  const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
  const first = 200 + installation * 26 + slot * 2;
  return { GATEWAY_HOST: `10.0.0.${first}`, EDGE_HTTP_HOST: `10.0.0.${first + 1}`, GATEWAY_ALLOWED_NETWORKS: TESTBED_SUBNET };
}

/**
 * The settings that point the provider at the testbed: its clouds.yaml, as
 * an operator would, and OPENSTACK_DATA_PATH=false, the simulation of
 * readiness the fake virt driver needs (its servers boot nothing, so no
 * engine ever answers on their addresses).
 */
export function testbedSettings(cloud = 'stratus-testbed'): Pick<AppConfig, 'OS_CLOUD' | 'OS_CLIENT_CONFIG_FILE'> & { OPENSTACK_DATA_PATH: 'false' } {
  return { OS_CLOUD: cloud, OS_CLIENT_CONFIG_FILE: join(testbedDir(), 'clouds.yaml'), OPENSTACK_DATA_PATH: 'false' };
}

/**
 * The installation the OpenStack-backed specs of test/openstack run the
 * compiled api and worker on: PROVIDER=openstack with the testbed's
 * settings, and a database, queues and data folder of this slot and
 * `-openstack`, apart from every e2e project's.
 */
export function testbedInstallation(): Record<string, string> {
  const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
  const suffix = `${slot ? `_${slot}` : ''}_openstack`;
  return {
    PROVIDER: 'openstack',
    ...testbedSettings(),
    OPENSTACK_NETWORK: TESTBED_NETWORK,
    ...testbedGatewaySettings(1),
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/stratus_test${suffix}`,
    QUEUE_PREFIX: `stratus-test${suffix.replaceAll('_', '-')}`,
    DATA_DIR: `.data/test${suffix.replaceAll('_', '-')}`,
    // Nova's fake virt driver boots in seconds, but a loaded testbed can keep a server in BUILD for minutes.
    INSTANCE_BOOT_TIMEOUT_MS: '180000',
  };
}

/** The testbed's cloud as the provider reads it: `stratus-testbed` (the project's user) or `stratus-testbed-admin`. */
export function testbedCloud(cloud = 'stratus-testbed', overrides: Partial<typeof UNSET> = {}): OpenStackCloud {
  return resolveCloud({ ...UNSET, ...testbedSettings(cloud), ...overrides });
}

export function testbedClient(cloud = 'stratus-testbed', options: OpenStackClientOptions = {}): OpenStackClient {
  return new OpenStackClient(testbedCloud(cloud), options);
}

/**
 * Brings the testbed up unless every daemon of it runs already (the first
 * time installs it: minutes); a running one is repaired (its Octavia objects
 * stuck PENDING set to ERROR, for their owners to delete: see testbed.sh).
 */
export function ensureTestbedUp(): void {
  try {
    execFileSync('bash', [script(), 'status'], { stdio: 'ignore' });
  } catch {
    execFileSync('bash', [script(), 'up'], { stdio: 'inherit' });
    return;
  }
  execFileSync('bash', [script(), 'repair'], { stdio: 'inherit' });
}

/**
 * Puts the testbed's Octavia load balancer `id` in ERROR, as Octavia does
 * when its driver fails a change (the testbed's no-op drivers never do),
 * behind the provider's back: `testbed.sh fail-lb`.
 */
export function failTestbedLoadBalancer(id: string): void {
  execFileSync('bash', [script(), 'fail-lb', id], { stdio: 'inherit' });
}

/** The same of an Octavia pool or listener, on a load balancer that stays ACTIVE: `testbed.sh fail-pool` / `fail-listener`. */
export function failTestbedOctaviaObject(kind: 'pool' | 'listener', id: string): void {
  execFileSync('bash', [script(), `fail-${kind}`, id], { stdio: 'inherit' });
}

/**
 * Does for snapshot `snapshotId` what a real hypervisor's upload does:
 * Nova's fake virt driver takes the createImage action but uploads no
 * disk, so the Glance image it makes stays `queued` and nothing boots from
 * it. Waits for that image, sets its disk and container format, uploads a
 * few bytes, and waits for `active`.
 */
export async function uploadTestbedSnapshot(snapshotId: string, client: OpenStackClient = testbedClient()): Promise<void> {
  type Image = { id: string; status: string };
  const images = async () => (await client.get<{ images: Image[] }>('image', '/images', { query: { [MARK.idKey]: snapshotId } })).images;
  const [image] = await waitFor(`Nova to make the image of snapshot ${snapshotId}`, async () => ((await images()).length ? images() : undefined), {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  if (image.status === 'queued') {
    await client.request('image', 'PATCH', `/images/${image.id}`, {
      body: [
        { op: 'add', path: '/disk_format', value: 'raw' },
        { op: 'add', path: '/container_format', value: 'bare' },
      ],
      headers: { 'Content-Type': 'application/openstack-images-v2.1-json-patch' },
    });
    await client.request('image', 'PUT', `/images/${image.id}/file`, { body: Buffer.alloc(1024), headers: { 'Content-Type': 'application/octet-stream' } });
  }
  await waitFor(`image ${image.id} to be active`, async () => (await images()).some((i) => i.id === image.id && i.status === 'active'), { timeoutMs: 60_000, intervalMs: 500 });
}

/** The keypair `name` in Nova, for the testbed's user (made when it is not there). */
export async function ensureTestbedKeypair(name: string): Promise<void> {
  const nova = testbedClient();
  try {
    await nova.get('compute', `/os-keypairs/${name}`);
  } catch (err) {
    if (!(err instanceof OpenStackError && err.status === 404)) throw err;
    await nova.post('compute', '/os-keypairs', { keypair: { name } });
  }
}

export async function removeTestbedKeypair(name: string): Promise<void> {
  try {
    await testbedClient().delete('compute', `/os-keypairs/${name}`);
  } catch (err) {
    if (!(err instanceof OpenStackError && err.status === 404)) throw err;
  }
}

/**
 * The Nova server of database server `key`, with the user_data it was booted
 * with (an admin's attribute, decoded); null when there is none. Two would be
 * a create made twice: never an answer.
 */
export async function testbedDatabaseServer(key: string): Promise<(NovaServer & { userData: string }) | null> {
  const servers = await serversOf(testbedClient(), key);
  if (servers.length > 1) throw new Error(`${servers.length} Nova servers for database server ${key}`);
  if (!servers.length) return null;
  const { server } = await testbedClient('stratus-testbed-admin').get<{ server: Record<string, string> }>('compute', `/servers/${servers[0].id}`);
  return { ...servers[0], userData: Buffer.from(server['OS-EXT-SRV-ATTR:user_data'] ?? '', 'base64').toString('utf8') };
}

/** Servers of the resource id that run or boot (those being deleted aside), counted in Nova itself. */
export async function runningServerCopies(client: OpenStackClient, id: string): Promise<number> {
  const servers = await serversOf(client, id);
  return servers.filter((s) => (s.status === 'ACTIVE' || s.status === 'BUILD') && s['OS-EXT-STS:task_state'] !== 'deleting').length;
}

/**
 * Waits until Nova runs one copy of the resource's server after two
 * racing creates, calling `look` (a driver's observe) before each count:
 * the driver removes a racing copy only on a look, and only once none of
 * the copies still builds (serverOf), so one look right after the race
 * may rightly keep both, and no look at all would never settle.
 */
export async function untilOneServerCopy(client: OpenStackClient, id: string, look: () => Promise<unknown>, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `one server of ${id} left`,
    async () => {
      await look();
      return (await runningServerCopies(client, id)) === 1;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/**
 * What an installation on the openstack provider left in the testbed (the
 * instances, volumes, managed databases, routes, proxy hosts and clusters
 * its database still lists): load balancers, servers, their ports and
 * floating IPs, server groups and volumes, deleted through the provider's
 * own drivers, an ha database's member ports and listener too. The
 * testbed is shared, so only what that database names goes. A database
 * that is not there left nothing.
 */
export async function releaseTestbedResourcesOf(databaseUrl: string): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  try {
    await db.connect();
  } catch (err) {
    if ((err as { code?: string }).code === '3D000') return;
    throw err;
  }
  let instances: string[];
  let volumes: string[];
  let databases: Array<{ id: number; engine: DatabaseEngine; ha: boolean }>;
  let listeners: string[];
  let clusters: string[];
  try {
    instances = (await db.query<{ id: string }>('SELECT id FROM instances')).rows.map((r) => r.id);
    volumes = (await db.query<{ id: string }>('SELECT id FROM volumes')).rows.map((r) => r.id);
    databases = (await db.query<{ id: number; engine: DatabaseEngine; ha: boolean }>('SELECT id, engine, ha FROM managed_databases')).rows;
    clusters = (await db.query<{ id: string }>('SELECT id FROM clusters')).rows.map((r) => r.id);
    // The listeners the worker names after its rows (route-, host-, cluster-, clusterdns-: apps/worker/src/gateway, clusters).
    listeners = [
      ...(await db.query<{ id: string }>('SELECT id FROM gateway_routes')).rows.map((r) => `route-${r.id}`),
      ...(await db.query<{ id: string }>('SELECT id FROM proxy_hosts')).rows.map((r) => `host-${r.id}`),
      ...clusters.flatMap((id) => [`cluster-${id}`, `clusterdns-${id}`]),
    ];
  } catch (err) {
    // A database the migrations never reached holds nothing.
    if ((err as { code?: string }).code === '42P01') return;
    throw err;
  } finally {
    await db.end();
  }
  const client = testbedClient();
  const balancers = new OpenStackLoadBalancerDriver(client);
  for (const id of listeners) await balancers.deleteListener(id);
  const compute = new OpenStackComputeDriver(client, { bootTimeoutMs: 0, network: TESTBED_NETWORK });
  const network = new OpenStackNetworkDriver(client);
  for (const id of clusters) {
    await network.releaseAddress(`cluster-${id}`);
    await compute.removePlacementGroup(id);
  }
  for (const id of instances) {
    await compute.delete(id);
    await network.releaseAddress(id);
  }
  const volume = new OpenStackVolumeDriver(client);
  for (const id of volumes) await volume.delete(id);
  // Only its delete is used (an ha database's listener and server group with it): what a server would boot with does not matter.
  const database = new OpenStackDatabaseDriver(client, { image: '', flavor: '', dataPath: false, bootTimeoutMs: 0 }, balancers);
  for (const row of databases) {
    await database.delete(databaseServerKey(row));
    await network.releaseAddress(databaseServerKey(row));
    if (row.ha) for (let n = 0; n < HA_MEMBERS; n++) await network.releaseAddress(databaseMemberKey(row, n));
  }
}
