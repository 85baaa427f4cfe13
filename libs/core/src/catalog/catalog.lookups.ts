import { Injectable } from '@nestjs/common';
import { DataSource, ObjectLiteral } from 'typeorm';
import { columnOf, EntityClass, hotFindOne, hotQuery, selectAll } from '../database/hot-queries';
import { Invalid } from '../errors/domain-errors';
import { Flavor, Image, Keypair, Network, SecurityGroup } from './catalog.entities';

/**
 * Reads of the mirrored provider catalog: the references a create names
 * (every resource that boots a server checks them, in the api and in the
 * worker alike) and the keyset pages of the listings.
 */
@Injectable()
export class CatalogLookups {
  constructor(private readonly dataSource: DataSource) {}

  /** A flavor by id or by name, as SPEC.md allows either; Invalid naming `field` otherwise. */
  async requireFlavor(idOrName: string, field: string): Promise<Flavor> {
    return this.require(Flavor, [{ id: idOrName }, { name: idOrName }], field, `flavor "${idOrName}" does not exist`);
  }

  /** A public image, or one of `projectId`'s own; another project's is as absent as one that never was. */
  async requireImage(id: string, field: string, projectId: string): Promise<Image> {
    const [row] = await hotQuery<Image>(this.dataSource, this.imageSql(), [id, projectId]);
    if (!row) throw new Invalid(field, `image "${id}" does not exist`);
    return row;
  }

  /** A page of the images `projectId` may boot (the public ones and its own), by id after `after`. */
  async imagesAfter(projectId: string, after: string | null, count: number): Promise<Image[]> {
    this.imagesPageSql ??= `${selectAll(this.dataSource, Image)} WHERE (${this.imageColumn('projectId')} IS NULL OR ${this.imageColumn('projectId')} = $3) AND ($1::text IS NULL OR ${this.imageColumn('id')} > $1) ORDER BY ${this.imageColumn('id')} LIMIT $2`;
    return hotQuery<Image>(this.dataSource, this.imagesPageSql, [after, count, projectId]);
  }

  private imagesPageSql: string | undefined;
  private imageByIdSql: string | undefined;

  private imageSql(): string {
    this.imageByIdSql ??= `${selectAll(this.dataSource, Image)} WHERE ${this.imageColumn('id')} = $1 AND (${this.imageColumn('projectId')} IS NULL OR ${this.imageColumn('projectId')} = $2) LIMIT 1`;
    return this.imageByIdSql;
  }

  private imageColumn(property: keyof Image): string {
    return columnOf(this.dataSource, Image, property);
  }

  /**
   * An image by id or by name (a cluster's `image` takes either, as Heat's
   * image parameter does), among those `projectId` may boot: the public ones
   * and its own. An id wins over a name.
   */
  async requireImageRef(idOrName: string, field: string, projectId: string): Promise<Image> {
    const visible = `(${this.imageColumn('projectId')} IS NULL OR ${this.imageColumn('projectId')} = $2)`;
    this.imageRefSql ??= `${selectAll(this.dataSource, Image)} WHERE (${this.imageColumn('id')} = $1 OR ${this.imageColumn('name')} = $1) AND ${visible} ORDER BY ${this.imageColumn('id')} = $1 DESC, ${this.imageColumn('projectId')} IS NULL LIMIT 1`;
    const [row] = await hotQuery<Image>(this.dataSource, this.imageRefSql, [idOrName, projectId]);
    if (!row) throw new Invalid(field, `image "${idOrName}" does not exist`);
    return row;
  }

  private imageRefSql: string | undefined;

  async requireNetwork(id: string, field: string): Promise<Network> {
    return this.require(Network, { id }, field, `network "${id}" does not exist`);
  }

  /**
   * The subnet a resource on `network` uses: the network's one subnet (the
   * catalog mirrors one range per network, so its subnet is named after it)
   * when `subnetId` is omitted, else that subnet if it is the network's.
   */
  requireSubnet(network: Network, subnetId: string | undefined, field: string): string {
    const own = subnetOf(network);
    if (subnetId !== undefined && subnetId !== own) throw new Invalid(field, `subnet "${subnetId}" does not exist on network "${network.id}" (its subnet is "${own}")`);
    return own;
  }

  async requireKeypair(name: string, field: string): Promise<Keypair> {
    return this.require(Keypair, { name }, field, `keypair "${name}" does not exist`);
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
        const group = await this.require(SecurityGroup, { [key]: value }, `${field}[${i}]`, `security group "${value}" does not exist`);
        found.push(group.id);
      }
    }
    return [...new Set(found)];
  }

  /**
   * Up to `count` rows of `entity` ordered by `key`, after the key `after`
   * (null: from the start). Read the hot way (database/hot-queries.ts): the
   * catalog listings are the api's busiest reads.
   */
  async rowsAfter<E extends ObjectLiteral>(entity: new () => E, key: keyof E & string, after: string | null, count: number): Promise<E[]> {
    return hotQuery<E>(this.dataSource, this.pageSql(entity, key), [after, count]);
  }

  /** The row `where` finds (a hot read: every create runs several of these), or Invalid naming `field`. */
  private async require<E extends ObjectLiteral>(entity: new () => E, where: Partial<E> | Array<Partial<E>>, field: string, message: string): Promise<E> {
    const row = await hotFindOne(this.dataSource, entity, where);
    if (!row) throw new Invalid(field, message);
    return row;
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

/** The id of a network's one subnet, as lookups and listings name it. */
export function subnetOf(network: Pick<Network, 'id'>): string {
  return `${network.id}-subnet`;
}
