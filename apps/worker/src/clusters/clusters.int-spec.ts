import { Cluster, ClusterLifecycle, ClusterMember } from '@stratus/core';
import { COMPUTE_DRIVER } from '@stratus/providers';
import { DEMO_CLUSTER, FakeComputeDriver, useWorkerOnFake, waitFor } from '@stratus/testing';
import { WorkerModule } from '../worker.module';

/*
 * The clusters processor as the worker runs it, in this process on the fake
 * provider (whose balancer checks no health: what needs members to pass
 * a check is the e2e suite's, on the local provider).
 */
describe('clusters on the fake provider', () => {
  const w = useWorkerOnFake('clusters', (config) => WorkerModule.register(config));
  const compute = () => w.get<FakeComputeDriver>(COMPUTE_DRIVER);
  const lives = () => w.get(ClusterLifecycle);

  it("boots a member in its cluster's placement group, and the group goes with the cluster", async () => {
    // Members are added one at a time, each once it passes the balancer's check, which the fake's never does: one is enough here.
    const cluster = await lives().create({ name: 'spread', ...DEMO_CLUSTER, min_size: 2, max_size: 3 }, w.principal);
    const members = await waitFor(
      'a member booted',
      async () => {
        const rows = await w.db.getRepository(ClusterMember).findBy({ clusterId: cluster.id });
        return rows.length > 0 && rows.every((m) => compute().has(m.instanceId)) ? rows : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    for (const m of members) expect(compute().specOf(m.instanceId)?.placementGroup).toBe(cluster.id);
    expect(compute().removedPlacementGroups).not.toContain(cluster.id);

    await lives().delete(cluster.id, w.principal);
    await waitFor('the cluster to be gone', async () => !(await w.db.getRepository(Cluster).existsBy({ id: cluster.id })), { timeoutMs: 120_000, intervalMs: 100 });
    expect(compute().removedPlacementGroups).toContain(cluster.id);
    for (const m of members) expect(compute().has(m.instanceId)).toBe(false);
  });
});
