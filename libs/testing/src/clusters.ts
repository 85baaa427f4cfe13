import { catalogReferences } from './catalog-fixtures';
import { HttpClient } from './http-client';
import { waitForState } from './wait';

/**
 * A cluster of the demo web app, as every cluster test creates it, its
 * references from the catalog of the provider under test (catalogFixtures),
 * read when spread as DEMO_INSTANCE's are (the port above 1024 is the
 * tests' choice, not a rule).
 */
export const DEMO_CLUSTER = Object.assign(catalogReferences({ image: 'demoImage', flavor: 'flavorName', backend_network_id: 'network', key_name: 'keypair' }), {
  port: 8080,
});

/** Polls the cluster until its status is one of `statuses`; returns it. */
export function waitForCluster(client: HttpClient, id: string, statuses: string[] = ['CREATE_COMPLETE'], timeoutMs = 60_000, intervalMs = 100): Promise<any> {
  return waitForState(
    `cluster ${id} to reach ${statuses.join(' or ')}`,
    async () => {
      // Any answer is kept, so a timeout shows a 404's envelope as well as a cluster's last status.
      return (await client.get(`/v1/clusters/${id}`)).body;
    },
    (cluster) => statuses.includes(cluster.status),
    { timeoutMs, intervalMs, failed: (cluster) => ['CREATE_FAILED', 'DELETE_FAILED'].includes(cluster.status) },
  );
}

/** Whether every member the cluster keeps runs and passes its check. */
export function allHealthy(cluster: any): boolean {
  return cluster.members.length === cluster.desired_size && cluster.members.every((m: any) => m.status === 'ACTIVE' && m.health === 'up');
}

/** Which instance answered a GET / of the demo web app through `url`. */
export async function answeredBy(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { instance: string }).instance;
}
