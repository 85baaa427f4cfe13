export interface CatalogFlavor {
  id: string;
  name: string;
  vcpus: number;
  ramMb: number;
  diskGb: number;
}

export interface CatalogImage {
  id: string;
  name: string;
  description: string;
}

export interface CatalogNetwork {
  id: string;
  name: string;
  cidr: string;
}

export interface CatalogKeypair {
  name: string;
  fingerprint: string;
}

export interface CatalogSecurityGroup {
  id: string;
  name: string;
  description: string;
  rules: Array<{
    id: string;
    direction: 'ingress' | 'egress';
    protocol: 'tcp' | 'udp' | 'icmp' | 'all';
    port?: number;
    cidr?: string;
    /** The peer must be a member of this group (by id); instead of a cidr. */
    remote_group_id?: string;
  }>;
}

/**
 * The group every provider offers and an instance gets when it names none
 * (SPEC.md): all egress, and ingress from the same network.
 */
export const DEFAULT_SECURITY_GROUP: CatalogSecurityGroup = {
  id: 'sg-default',
  name: 'default',
  description: 'Allows all egress and ingress from the same network',
  rules: [
    { id: 'sgr-default-egress', direction: 'egress', protocol: 'all' },
    { id: 'sgr-default-ingress', direction: 'ingress', protocol: 'all' },
  ],
};

/** What a provider offers to build from. Mirrored into PostgreSQL by the catalog sync. */
export interface ProviderCatalog {
  flavors: CatalogFlavor[];
  images: CatalogImage[];
  networks: CatalogNetwork[];
  keypairs: CatalogKeypair[];
  securityGroups: CatalogSecurityGroup[];
}

export interface CatalogDriver {
  catalog(): Promise<ProviderCatalog>;
}

export const CATALOG_DRIVER = Symbol('CATALOG_DRIVER');
