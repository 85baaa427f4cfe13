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
