import { CatalogDriver, DEFAULT_SECURITY_GROUP, ProviderCatalog } from '@stratus/providers';

/**
 * The FAKE provider's catalog: the ids the local provider offers (the e2e
 * helpers build with them), and no images beyond the two the fake knows.
 */
export class FakeCatalogDriver implements CatalogDriver {
  constructor(private readonly addressPool: string) {}

  async catalog(): Promise<ProviderCatalog> {
    return {
      flavors: [
        { id: 'f-nano', name: 'm1.nano', vcpus: 1, ramMb: 128, diskGb: 1 },
        { id: 'f-small', name: 'm1.small', vcpus: 1, ramMb: 512, diskGb: 10 },
        { id: 'f-medium', name: 'm1.medium', vcpus: 2, ramMb: 1024, diskGb: 20 },
        { id: 'f-db-small', name: 'db.small', vcpus: 1, ramMb: 1024, diskGb: 20 },
      ],
      images: [
        { id: 'demo-web', name: 'demo-web', description: 'fake provider: boots, serves nothing' },
        { id: 'plain', name: 'plain', description: 'fake provider: boots, runs nothing' },
      ],
      networks: [{ id: 'private', name: 'private', cidr: this.addressPool }],
      keypairs: [{ name: 'default', fingerprint: 'fake:no-ssh' }],
      securityGroups: [DEFAULT_SECURITY_GROUP],
    };
  }
}
