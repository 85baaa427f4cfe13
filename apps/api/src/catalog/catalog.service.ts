import { Injectable } from '@nestjs/common';
import { CatalogLookups, Flavor, Image, Keypair, Network, SecurityGroup } from '@stratus/core';
import { ObjectLiteral } from 'typeorm';
import { decodeCursor, Page, PageQuery, toPage } from '../http/cursor';
import { FlavorView, ImageView, KeypairView, NetworkView, SecurityGroupView } from './catalog.views';

const DEFAULT_LIMIT = 20;

/**
 * The catalog listings as pages: cursor and presentation here, the rows from
 * libs/core's CatalogLookups (which also holds the checks creates rely on).
 */
@Injectable()
export class CatalogService {
  constructor(private readonly catalog: CatalogLookups) {}

  flavors(query: PageQuery): Promise<Page<FlavorView>> {
    return this.page(Flavor, 'id', query, (f): FlavorView => ({ id: f.id, name: f.name, vcpus: f.vcpus, ram_mb: f.ramMb, disk_gb: f.diskGb }));
  }

  securityGroups(query: PageQuery): Promise<Page<SecurityGroupView>> {
    return this.page(SecurityGroup, 'id', query, (g): SecurityGroupView => ({ id: g.id, name: g.name, description: g.description, rules: g.rules }));
  }

  /** The provider's images and the project's own (its snapshots), never another project's. */
  async images(query: PageQuery, projectId: string): Promise<Page<ImageView>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await this.catalog.imagesAfter(projectId, decodeCursor(query.cursor), limit + 1);
    return toPage(
      rows,
      limit,
      (r) => r.id,
      (i: Image): ImageView => ({ id: i.id, name: i.name, description: i.description, visibility: i.projectId ? 'private' : 'public' }),
    );
  }

  networks(query: PageQuery): Promise<Page<NetworkView>> {
    return this.page(Network, 'id', query, (n): NetworkView => ({ id: n.id, name: n.name, cidr: n.cidr }));
  }

  keypairs(query: PageQuery): Promise<Page<KeypairView>> {
    return this.page(Keypair, 'name', query, (k): KeypairView => ({ name: k.name, fingerprint: k.fingerprint }));
  }

  /** One keyset page: `limit + 1` rows tell whether another page follows. */
  private async page<E extends ObjectLiteral, T>(entity: new () => E, key: keyof E & string, query: PageQuery, present: (row: E) => T): Promise<Page<T>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const rows = await this.catalog.rowsAfter(entity, key, after, limit + 1);
    return toPage(rows, limit, (r) => String(r[key]), present);
  }
}
