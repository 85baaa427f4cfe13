import { dropDatabase, testEnv } from '@stratus/testing';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app.config';
import { migrate } from '../setup/setup';
import { Keypair } from './catalog.entities';
import { syncCatalog } from './catalog-sync';

/** syncCatalog on a throwaway database migrated as an installation's is. */
describe('syncCatalog', () => {
  const url = new URL(testEnv().DATABASE_URL);
  url.pathname = `/stratus_catalog_sync_${process.pid}`;
  let ds: DataSource;

  beforeAll(async () => {
    ds = await migrate(loadConfig({ ...testEnv(), DATABASE_URL: url.toString() }));
  });

  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(url.toString());
  });

  const sync = (keypairs: Keypair[]) => ds.transaction((m) => syncCatalog(m, { flavors: [], images: [], networks: [], keypairs, securityGroups: [] }));

  it('empties a kind the provider no longer has any of (a project with no keypair left)', async () => {
    await sync([{ name: 'only', fingerprint: 'aa:bb' }]);
    expect(await ds.getRepository(Keypair).count()).toBe(1);
    await sync([]);
    expect(await ds.getRepository(Keypair).count()).toBe(0);
  });
});
