import { CatalogDriver, DEFAULT_SECURITY_GROUP, ProviderCatalog } from '../catalog.driver';
import { LocalImages } from './local-images';

/**
 * What the local provider offers. Flavors are enforced with cgroups where the
 * host allows it; the one network is the loopback pool; keypairs are accepted
 * for compatibility (local instances have no SSH). Security groups are
 * enforced by the packet filter (packet-filter.ts): a rule without a cidr
 * means anywhere for egress and the network itself for ingress.
 */
export class LocalCatalog implements CatalogDriver {
  constructor(
    private readonly images: LocalImages,
    private readonly addressPool: string,
  ) {}

  async catalog(): Promise<ProviderCatalog> {
    return {
      flavors: [
        { id: 'f-nano', name: 'm1.nano', vcpus: 1, ramMb: 128, diskGb: 1 },
        { id: 'f-micro', name: 'm1.micro', vcpus: 1, ramMb: 256, diskGb: 2 },
        { id: 'f-small', name: 'm1.small', vcpus: 1, ramMb: 512, diskGb: 10 },
        { id: 'f-medium', name: 'm1.medium', vcpus: 2, ramMb: 1024, diskGb: 20 },
        { id: 'f-large', name: 'm1.large', vcpus: 2, ramMb: 2048, diskGb: 40 },
        { id: 'f-xlarge', name: 'm1.xlarge', vcpus: 4, ramMb: 4096, diskGb: 80 },
        { id: 'f-db-small', name: 'db.small', vcpus: 1, ramMb: 1024, diskGb: 20 },
        { id: 'f-db-medium', name: 'db.medium', vcpus: 2, ramMb: 2048, diskGb: 50 },
      ],
      images: this.images.list().map((i) => ({ id: i.id, name: i.name, description: i.description })),
      networks: [{ id: 'private', name: 'private', cidr: this.addressPool }],
      keypairs: [{ name: 'default', fingerprint: 'local:no-ssh' }],
      securityGroups: [
        DEFAULT_SECURITY_GROUP,
        {
          id: 'sg-web',
          name: 'web',
          description: 'HTTP and HTTPS from anywhere',
          rules: [
            { id: 'sgr-web-80', direction: 'ingress', protocol: 'tcp', port: 80, cidr: '0.0.0.0/0' },
            { id: 'sgr-web-443', direction: 'ingress', protocol: 'tcp', port: 443, cidr: '0.0.0.0/0' },
          ],
        },
        {
          id: 'sg-ssh',
          name: 'ssh',
          description: 'SSH from anywhere',
          rules: [{ id: 'sgr-ssh-22', direction: 'ingress', protocol: 'tcp', port: 22, cidr: '0.0.0.0/0' }],
        },
      ],
    };
  }
}
