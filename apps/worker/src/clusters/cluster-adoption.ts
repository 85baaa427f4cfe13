import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cluster, ClusterEvent, forgetProjectImage, GatewayRoute, recordProjectImage, refreshInstanceDomains } from '@stratus/core';
import { COMPUTE_DRIVER, ComputeDriver } from '@stratus/providers';
import { DataSource, In } from 'typeorm';
import { HostListeners } from '../gateway/host-listeners';
import { RouteListeners } from '../gateway/route-listeners';
import { clusterAddressKey } from './cluster-balancer';
import { ObservedMember } from './cluster-members';

/**
 * A cluster made from a running instance (POST /v1/clusters/from-instance):
 * that instance is its first member as it runs, and before any other member
 * is built,
 * 1. once the balancer's check passes on the instance (the converge job
 *    calls this only then), the instance's URL moves to the balancer: its
 *    proxy hosts that forward to the cluster's port become the cluster's
 *    (they outlive the instance, as the URL must), and its gateway routes
 *    to that port reach the cluster's address. Each listener then gets the
 *    balancer as its backend before the instance stops being one
 *    (makeOneBackend), so no request finds neither;
 * 2. a snapshot image of the instance is made, and recorded as an image of
 *    the cluster's project only: the cluster's image_id, which the other
 *    members boot from.
 * The recorded image says both are done: each run before it does both
 * again, each step safe to repeat.
 *
 * Deleting the cluster deletes every member, the adopted one included, and
 * takes what moved with it (`release`).
 */
@Injectable()
export class ClusterAdoption {
  private readonly logger = new Logger(ClusterAdoption.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly hosts: HostListeners,
    private readonly routes: RouteListeners,
    @Inject(COMPUTE_DRIVER) private readonly compute: ComputeDriver,
  ) {}

  /**
   * Brings a cluster made from an instance to where its other members can
   * be built; null when they can (always, for a cluster built from an
   * image), else why the build cannot go on. `live`: the members that count
   * now, every one of them passing its check.
   */
  async prepare(cluster: Cluster & { address: string }, live: ObservedMember[]): Promise<string | null> {
    const source = cluster.sourceInstanceId;
    if (source === null || (await this.imageRecorded(cluster))) return null;
    if (!live.some((m) => m.instanceId === source)) return `instance ${source} stopped before a snapshot of it was made`;
    const moved = await this.moveUrl(cluster, source);
    const image = await this.compute.snapshot({ id: cluster.imageId, instanceId: source, projectId: cluster.projectId, name: `${cluster.name}-snapshot` });
    await this.dataSource.transaction(async (m) => {
      if (!(await recordProjectImage(m, { id: image.id, name: image.name, description: image.description, projectId: cluster.projectId }))) {
        throw new Error(`image id ${image.id} is another's`);
      }
      const url =
        moved.hosts.length + moved.routes.length
          ? `its URL (${[...moved.hosts, ...moved.routes.map((p) => `gateway port ${p}`)].join(', ')}) now reaches the balancer`
          : 'it had no URL to move';
      await m
        .getRepository(ClusterEvent)
        .insert({ clusterId: cluster.id, kind: 'build', reason: `instance ${source} serves behind the balancer; ${url}; other members boot from snapshot image ${image.id}` });
    });
    this.logger.log({ cluster: cluster.id, instance: source, image: image.id, ...moved }, 'instance adopted');
    return null;
  }

  /**
   * What moved to the cluster goes with it: its gateway routes and proxy
   * hosts with their listeners (before the cluster's address is released:
   * nothing may still lead there once another resource can have it), and
   * the snapshot image (instances booted from it keep their files).
   */
  async release(cluster: Cluster): Promise<void> {
    await this.routes.removeRoutesTo(clusterAddressKey(cluster.id));
    // TypeORM answers a DELETE with [rows, count].
    const [gone]: [Array<{ id: string }>, number] = await this.dataSource.query(`DELETE FROM proxy_hosts WHERE cluster_id = $1 RETURNING id`, [cluster.id]);
    for (const { id } of gone) await this.hosts.apply(id);
    if (cluster.sourceInstanceId === null) return;
    await forgetProjectImage(this.dataSource.manager, cluster.imageId, cluster.projectId);
    await this.compute.deleteSnapshot(cluster.imageId);
  }

  private async imageRecorded(cluster: Cluster): Promise<boolean> {
    const [row] = await this.dataSource.query(`SELECT 1 FROM images WHERE id = $1 AND project_id = $2`, [cluster.imageId, cluster.projectId]);
    return row !== undefined;
  }

  /**
   * The instance's proxy hosts and gateway routes to the cluster's port
   * become the cluster's, in one transaction; then their listeners are made
   * as they now ask (the reconcilers would, should this run stop here).
   * Those to another port of the instance stay its own.
   */
  private async moveUrl(cluster: Cluster & { address: string }, instanceId: string): Promise<{ hosts: string[]; routes: number[] }> {
    const [hosts, routes] = await this.dataSource.transaction(async (m) => {
      // TypeORM answers an UPDATE with [rows, count].
      const [hosts]: [Array<{ id: string; hostname: string }>, number] = await m.query(
        `UPDATE proxy_hosts SET instance_id = NULL, cluster_id = $2, generation = generation + 1, updated_at = now()
          WHERE instance_id = $1 AND forward_port = $3 RETURNING id, hostname`,
        [instanceId, cluster.id, cluster.port],
      );
      if (hosts.length) await refreshInstanceDomains(m, instanceId);
      const [routes]: [Array<{ id: string }>, number] = await m.query(
        `UPDATE gateway_routes SET target_ip = $2, target_lease = $3, updated_at = now() WHERE target_lease = $1 AND target_port = $4 RETURNING id`,
        [instanceId, cluster.address, clusterAddressKey(cluster.id), cluster.port],
      );
      return [hosts, routes] as const;
    });
    for (const h of hosts) await this.hosts.apply(h.id);
    const moved = routes.length ? await this.dataSource.getRepository(GatewayRoute).findBy({ id: In(routes.map((r) => r.id)) }) : [];
    for (const route of moved) await this.routes.ensure(route);
    return { hosts: hosts.map((h) => h.hostname), routes: moved.map((r) => r.port) };
  }
}
