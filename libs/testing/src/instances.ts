import { HttpClient } from './http-client';
import { waitFor } from './wait';

export const DEMO_INSTANCE = {
  image_id: 'demo-web',
  flavor_id: 'm1.small',
  network_id: 'private',
  keypair_name: 'default',
};

/** Polls GET /v1/instances (the way SPEC.md says clients follow progress) until the instance leaves BUILD. */
export async function waitForInstance(
  client: HttpClient,
  id: string,
  statuses: string[] = ['ACTIVE'],
  timeoutMs = 60_000,
): Promise<any> {
  return waitFor(
    `instance ${id} to reach ${statuses.join('/')}`,
    async () => {
      const list = await client.get('/v1/instances');
      const item = (list.body as any[]).find((i) => i.id === id);
      return item && statuses.includes(item.status) ? item : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}
