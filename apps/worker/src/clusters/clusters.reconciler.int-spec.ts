import { AppConfig, Cluster, loadConfig, migrate } from '@stratus/core';
import { ComputeDriver, ObservedInstance } from '@stratus/providers';
import { dropDatabase, FakeControl, FakeLoadBalancerDriver, recordingOutbox, testEnv } from '@stratus/testing';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { HostListeners } from '../gateway/host-listeners';
import { CLUSTER_DNS_PREFIX, clusterListener, dnsListener } from './cluster-balancer';
import { ClusterMembers } from './cluster-members';
import { ClustersReconciler } from './clusters.reconciler';

/**
 * The sweep over clusters at rest, on a throwaway database migrated as an
 * installation's is, against the fake's balancer (in memory) counted call
 * by call: what the sweep asks of the provider is what it costs on every
 * tick (on Octavia, each observe is several GETs).
 */
describe('ClustersReconciler', () => {
  const database = `stratus_clusters_rec_${process.pid}`;
  const env = testEnv();
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${database}`;
  let ds: DataSource;
  let config: AppConfig;
  let balancer: FakeLoadBalancerDriver;
  let reconciler: ClustersReconciler;
  /** The balancer's calls since the last `counted()`: observe by listener id, and listenerIds by prefix. */
  let calls: Array<{ op: 'observe' | 'listenerIds'; arg: string }> = [];
  /** What listenerIds answers instead of the balancer's own, when set. */
  let listing: ((prefix: string) => Promise<string[]>) | null = null;
  const { outbox, written } = recordingOutbox();
  // Every member runs: what the sweep decides here is the balancer's part alone.
  const compute = {
    async observeAll(ids: string[]): Promise<Map<string, ObservedInstance>> {
      return new Map(ids.map((id) => [id, { running: true, ready: true, limits: 'none' }]));
    },
  } as unknown as ComputeDriver;

  beforeAll(async () => {
    config = loadConfig({ ...env, DATABASE_URL: url.toString(), EDGE_HTTP_HOST: '127.0.0.1', EDGE_HTTP_PORT: '8081' });
    ds = await migrate(config);
    balancer = new FakeLoadBalancerDriver(new FakeControl());
    const observe = balancer.observe.bind(balancer);
    const listenerIds = balancer.listenerIds.bind(balancer);
    balancer.observe = (id) => {
      calls.push({ op: 'observe', arg: id });
      return observe(id);
    };
    balancer.listenerIds = (prefix) => {
      calls.push({ op: 'listenerIds', arg: prefix });
      return listing ? listing(prefix) : listenerIds(prefix);
    };
    const hosts = new HostListeners(ds, config, balancer);
    // A cluster at rest is healed through the outbox; the queue is asked only of clusters mid-job, which these are not.
    reconciler = new ClustersReconciler(ds, new ClusterMembers(ds, compute, balancer), outbox, {} as Queue, balancer, hosts, config);
  });

  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(url.toString());
  });

  beforeEach(async () => {
    // Each test its own clusters: those of the one before are left out of the sweep.
    await ds.query(`UPDATE clusters SET status = 'DELETE_FAILED'`);
    listing = null;
  });

  const counted = () => {
    const seen = calls;
    calls = [];
    return seen;
  };

  /** A cluster at rest with `members` running members, its listener and its dnsName entry made as its build makes them. */
  async function cluster(n: number, members = 2): Promise<Cluster> {
    const projectId = randomUUID();
    const address = `10.78.${n}.1`;
    const [{ id }] = await ds.query(
      `INSERT INTO clusters (project_id, user_id, name, image_id, flavor_id, network_id, subnet_id, key_name, port, dns_name, min_size, max_size, desired_size,
                             scale_out_threshold, scale_in_threshold, status, address)
       VALUES ($1, 'u', 'c', 'img', 'm1.small', 'private', 'private-subnet', 'default', 8080, $2, 1, 3, $3, 0.7, 0.2, 'CREATE_COMPLETE', $4) RETURNING id`,
      [projectId, `c-${randomUUID().slice(0, 8)}.localhost`, members, address],
    );
    const row = await ds.getRepository(Cluster).findOneByOrFail({ id });
    await balancer.ensureListener(clusterListener({ ...row, address }));
    for (let i = 0; i < members; i++) {
      const member = `10.78.${n}.${i + 10}`;
      const [{ id: instanceId }] = await ds.query(
        `INSERT INTO instances (project_id, user_id, name, image_id, flavor_id, network_id, keypair_name, security_group_ids, address, status)
         VALUES ($1, 'u', 'm', 'img', 'm1.small', 'private', 'default', '{}', $2, 'ACTIVE') RETURNING id`,
        [projectId, member],
      );
      await ds.query(`INSERT INTO cluster_members (instance_id, cluster_id, spec_generation) VALUES ($1, $2, 1)`, [instanceId, id]);
      await balancer.addBackend(`cluster-${id}`, { address: member, port: 8080 });
    }
    const dns = dnsListener({ ...row, address }, { host: config.EDGE_HTTP_HOST, port: config.EDGE_HTTP_PORT })!;
    await balancer.ensureListener(dns.listener);
    await balancer.addBackend(dns.listener.id, dns.backend);
    return row;
  }

  it("asks the balancer for the clusters' dnsName entries once a sweep, however many clusters there are", async () => {
    const clusters = [await cluster(1), await cluster(2), await cluster(3)];
    counted();
    const sweeps = 5;
    for (let i = 0; i < sweeps; i++) await reconciler.sweep();
    const seen = counted();
    const dnsObserves = seen.filter((c) => c.op === 'observe' && c.arg.startsWith(CLUSTER_DNS_PREFIX)).length;
    const listings = seen.filter((c) => c.op === 'listenerIds').length;
    // Each cluster's own listener is observed every sweep (its members' health); its dnsName entry is found in the one listing.
    expect({ dnsObserves, listings, listenerObserves: seen.filter((c) => c.op === 'observe' && c.arg.startsWith('cluster-')).length }).toEqual({
      dnsObserves: 0,
      listings: sweeps,
      listenerObserves: sweeps * clusters.length,
    });
    expect(seen.filter((c) => c.op === 'listenerIds').every((c) => c.arg === CLUSTER_DNS_PREFIX)).toBe(true);
    for (const c of clusters) expect((await ds.getRepository(Cluster).findOneByOrFail({ id: c.id })).status).toBe('CREATE_COMPLETE');
  });

  it('asks nothing of the kind when no cluster is at rest', async () => {
    await ds.query(
      `INSERT INTO clusters (project_id, user_id, name, image_id, flavor_id, network_id, subnet_id, key_name, port, dns_name, min_size, max_size, desired_size,
                             scale_out_threshold, scale_in_threshold, status)
       VALUES ($1, 'u', 'c', 'img', 'm1.small', 'private', 'private-subnet', 'default', 8080, $2, 1, 3, 1, 0.7, 0.2, 'CREATE_FAILED')`,
      [randomUUID(), `c-${randomUUID().slice(0, 8)}.localhost`],
    );
    counted();
    await reconciler.sweep();
    expect(counted()).toEqual([]);
  });

  it('heals a cluster whose dnsName entry the balancer lost, at the next sweep', async () => {
    const kept = await cluster(4);
    const lost = await cluster(5);
    await balancer.deleteListener(`${CLUSTER_DNS_PREFIX}${lost.id}`);
    await reconciler.sweep();
    expect(await ds.getRepository(Cluster).findOneByOrFail({ id: lost.id })).toMatchObject({
      status: 'UPDATE_IN_PROGRESS',
      step: `replacing: the listener of its dnsName ${lost.dnsName} is missing`,
    });
    expect(written).toContainEqual({ name: 'cluster.converge', payload: { clusterId: lost.id, generation: lost.generation + 1 } });
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id: kept.id })).status).toBe('CREATE_COMPLETE');
  });

  it('does not heal a cluster whose entry a listing taken too early missed: it observes that one entry first', async () => {
    const c = await cluster(6);
    // A listing from before the entry was made again.
    listing = async () => [];
    counted();
    await reconciler.sweep();
    expect(counted().filter((x) => x.op === 'observe' && x.arg.startsWith(CLUSTER_DNS_PREFIX))).toEqual([{ op: 'observe', arg: `${CLUSTER_DNS_PREFIX}${c.id}` }]);
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id: c.id })).status).toBe('CREATE_COMPLETE');
  });

  it('observes each entry when the listing fails, and still heals one that is gone', async () => {
    const kept = await cluster(7);
    const lost = await cluster(8);
    await balancer.deleteListener(`${CLUSTER_DNS_PREFIX}${lost.id}`);
    listing = async () => {
      throw new Error('the balancer cannot list now');
    };
    counted();
    await reconciler.sweep();
    expect(counted().filter((x) => x.op === 'listenerIds')).toHaveLength(1);
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id: lost.id })).status).toBe('UPDATE_IN_PROGRESS');
    expect((await ds.getRepository(Cluster).findOneByOrFail({ id: kept.id })).status).toBe('CREATE_COMPLETE');
  });
});
