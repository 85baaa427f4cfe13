import { BadRequestException, Injectable } from '@nestjs/common';
import { columnOf, EntityClass, Flavor, hotFindOne, hotQuery, Image, Keypair, Network, SecurityGroup, selectAll } from '@stratus/core';
import { DataSource, ObjectLiteral } from 'typeorm';
import { decodeCursor, Page, PageQuery, toPage } from '../http/cursor';

const DEFAULT_LIMIT = 20;

/** Lookups in the mirrored provider catalog, and the checks that instance creation relies on. */
@Injectable()
export class CatalogService {
  constructor(private readonly dataSource: DataSource) {}

  flavors(query: PageQuery): Promise<Page<unknown>> {
    return this.page(Flavor, 'id', query, (f) => ({ id: f.id, name: f.name, vcpus: f.vcpus, ram_mb: f.ramMb, disk_gb: f.diskGb }));
  }

  securityGroups(query: PageQuery): Promise<Page<unknown>> {
    return this.page(SecurityGroup, 'id', query, (g) => ({ id: g.id, name: g.name, description: g.description, rules: g.rules }));
  }

  images(query: PageQuery): Promise<Page<unknown>> {
    return this.page(Image, 'id', query, (i) => ({ id: i.id, name: i.name, description: i.description }));
  }

  networks(query: PageQuery): Promise<Page<unknown>> {
    return this.page(Network, 'id', query, (n) => ({ id: n.id, name: n.name, cidr: n.cidr }));
  }

  keypairs(query: PageQuery): Promise<Page<unknown>> {
    return this.page(Keypair, 'name', query, (k) => ({ name: k.name, fingerprint: k.fingerprint }));
  }

  /** A flavor by id or by name, as SPEC.md allows either; 400 naming `field` otherwise. */
  async requireFlavor(idOrName: string, field: string): Promise<Flavor> {
    return this.require(Flavor, [{ id: idOrName }, { name: idOrName }], `${field}: flavor "${idOrName}" does not exist`);
  }

  async requireImage(id: string, field: string): Promise<Image> {
    return this.require(Image, { id }, `${field}: image "${id}" does not exist`);
  }

  async requireNetwork(id: string, field: string): Promise<Network> {
    return this.require(Network, { id }, `${field}: network "${id}" does not exist`);
  }

  async requireKeypair(name: string, field: string): Promise<Keypair> {
    return this.require(Keypair, { name }, `${field}: keypair "${name}" does not exist`);
  }

  /**
   * Security groups named by id and/or name; none given means the `default`
   * group. Returns their ids.
   */
  async requireSecurityGroups(ids: string[] | undefined, names: string[] | undefined): Promise<string[]> {
    if (!ids?.length && !names?.length) names = ['default'];
    const found: string[] = [];
    for (const [field, values, key] of [
      ['security_group_ids', ids ?? [], 'id'],
      ['security_group_names', names ?? [], 'name'],
    ] as const) {
      for (const [i, value] of values.entries()) {
        const group = await this.require(SecurityGroup, { [key]: value }, `${field}[${i}]: security group "${value}" does not exist`);
        found.push(group.id);
      }
    }
    return [...new Set(found)];
  }

  /** The row `where` finds (a hot read: every create runs several of these), or 400 with `message`. */
  private async require<E extends ObjectLiteral>(entity: new () => E, where: Partial<E> | Array<Partial<E>>, message: string): Promise<E> {
    const row = await hotFindOne(this.dataSource, entity, where);
    if (!row) throw new BadRequestException(message);
    return row;
  }

  /** One keyset page, read the hot way (libs/core/src/database/hot-queries.ts): this is the API's busiest read. */
  private async page<E extends ObjectLiteral, T>(
    entity: new () => E,
    key: keyof E & string,
    query: PageQuery,
    present: (row: E) => T,
  ): Promise<Page<T>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const rows = await hotQuery<E>(this.dataSource, this.pageSql(entity, key), [after, limit + 1]);
    return toPage(rows, limit, (r) => String(r[key]), present);
  }

  private readonly pageSqls = new Map<EntityClass, string>();

  private pageSql(entity: EntityClass, key: string): string {
    let sql = this.pageSqls.get(entity);
    if (!sql) {
      const column = columnOf(this.dataSource, entity, key);
      sql = `${selectAll(this.dataSource, entity)} WHERE ($1::text IS NULL OR ${column} > $1) ORDER BY ${column} LIMIT $2`;
      this.pageSqls.set(entity, sql);
    }
    return sql;
  }
}
