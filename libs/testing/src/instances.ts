import { Instance } from '@stratus/core';
import { DataSource } from 'typeorm';
import { catalogReferences } from './catalog-fixtures';
import { HttpClient } from './http-client';
import { waitForState } from './wait';

/**
 * The references of a demo instance in POST /v1/instances, from the catalog
 * of the provider under test (catalogFixtures): read when spread, so a
 * suite's fixtures are the provider's once its catalog is known.
 */
export const DEMO_INSTANCE = catalogReferences({ image_id: 'demoImage', flavor_id: 'flavorName', network_id: 'network', keypair_name: 'keypair' });

/** Polls GET /v1/instances (the way SPEC.md says clients follow progress) until the instance leaves BUILD. */
export async function waitForInstance(client: HttpClient, id: string, statuses: string[] = ['ACTIVE'], timeoutMs = 60_000): Promise<any> {
  return waitForState(
    `instance ${id} to reach ${statuses.join('/')}`,
    async () => {
      const list = await client.get('/v1/instances');
      return (list.body as any[]).find((i) => i.id === id);
    },
    (instance) => statuses.includes(instance.status),
    { timeoutMs, intervalMs: 200, failed: (instance) => instance.status === 'ERROR' },
  );
}

/**
 * An instance row with no process behind it (no worker made it), on an
 * address outside the test pools: for tests about the row alone, which may
 * change or delete it as the worker would.
 */
export function saveBareInstance(db: DataSource, fields: Partial<Instance> & Pick<Instance, 'projectId' | 'userId'>): Promise<Instance> {
  const octet = () => 1 + Math.floor(Math.random() * 250);
  return db.getRepository(Instance).save({
    name: 'bare',
    imageId: 'plain',
    imageName: 'plain',
    flavorId: 'm1.small',
    networkId: 'private',
    keypairName: 'default',
    securityGroupIds: [],
    port: 3000,
    dname: null,
    userData: null,
    address: `127.99.${octet()}.${octet()}`,
    status: 'ACTIVE',
    statusReason: null,
    metadata: {},
    ...fields,
  });
}
