import { Inject, Injectable } from '@nestjs/common';
import { Cluster, MemberHealth } from '@stratus/core';
import { BackendSpec, COMPUTE_DRIVER, ComputeDriver, LOAD_BALANCER_DRIVER, LoadBalancerDriver, ObservedListener } from '@stratus/providers';
import { DataSource } from 'typeorm';
import { clusterListenerId } from './cluster-balancer';

/** A member as the worker sees it now: its link, its instance row, what the provider runs and what the balancer says. */
export interface ObservedMember {
  instanceId: string;
  instanceStatus: string;
  statusReason: string | null;
  address: string | null;
  specGeneration: number;
  /** What its instance was booted from, to say what a rolling update changed. */
  imageId: string;
  flavorId: string;
  createdAt: Date;
  /** Something of it runs on the provider. */
  running: boolean;
  /** The machine it runs on, when the provider says. */
  host: string | null;
  /** The balancer's word, `unknown` while it is not a backend. */
  health: MemberHealth;
  /** Its instance is still booting. */
  building: boolean;
  /** Why it no longer counts as a member (its process exited, it was deleted, it failed); null while it does. */
  lost: string | null;
}

export interface MembersSeen {
  members: ObservedMember[];
  /** The balancer's listener as the provider holds it; null when it does not exist (yet). */
  listener: ObservedListener | null;
}

const MEMBERS = `SELECT m.instance_id AS "instanceId", m.spec_generation AS "specGeneration", m.created_at AS "createdAt",
                        i.status AS "instanceStatus", i.status_reason AS "statusReason", host(i.address) AS address,
                        i.image_id AS "imageId", i.flavor_id AS "flavorId"
                   FROM cluster_members m JOIN instances i ON i.id = m.instance_id`;

/**
 * What a cluster's members are now, for its jobs and its reconciler alike:
 * one read of the links, one observe of the provider's instances and one
 * of the balancer, and each member's health written back where the api
 * reads it.
 */
@Injectable()
export class ClusterMembers {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMPUTE_DRIVER) private readonly compute: ComputeDriver,
    @Inject(LOAD_BALANCER_DRIVER) private readonly balancer: LoadBalancerDriver,
  ) {}

  async observe(cluster: Pick<Cluster, 'id' | 'port'>): Promise<MembersSeen> {
    const rows: Array<Omit<ObservedMember, 'running' | 'host' | 'health' | 'building' | 'lost'>> = await this.dataSource.query(
      `${MEMBERS} WHERE m.cluster_id = $1 ORDER BY m.created_at, m.instance_id`,
      [cluster.id],
    );
    const [seen, listener] = await Promise.all([this.compute.observeAll(rows.map((r) => r.instanceId)), this.balancer.observe(clusterListenerId(cluster.id))]);
    const backends = new Map((listener?.backends ?? []).filter((b) => b.state !== 'removing').map((b) => [`${b.address}:${b.port}`, b]));
    const members = rows.map((row): ObservedMember => {
      const observed = seen.get(row.instanceId);
      const running = observed?.running ?? false;
      const backend = row.address ? backends.get(`${row.address}:${cluster.port}`) : undefined;
      return {
        ...row,
        createdAt: new Date(row.createdAt),
        running,
        host: observed?.host ?? null,
        health: backend?.state === 'active' ? backend.health : 'unknown',
        building: row.instanceStatus === 'BUILD',
        lost: lostReason(row.instanceStatus, running, row.statusReason),
      };
    });
    return { members, listener };
  }

  /** Writes each member's health (and since when, and when it first joined) where it changed. */
  async record(members: ObservedMember[]): Promise<void> {
    if (members.length === 0) return;
    await this.dataSource.query(
      `UPDATE cluster_members m SET health = o.health, health_since = CASE WHEN m.health = o.health THEN m.health_since ELSE now() END,
              joined_at = COALESCE(m.joined_at, CASE WHEN o.health = 'up' THEN now() END), host = COALESCE(o.host, m.host)
         FROM jsonb_to_recordset($1::jsonb) AS o(instance_id uuid, health text, host text)
        WHERE m.instance_id = o.instance_id AND (m.health IS DISTINCT FROM o.health OR m.host IS DISTINCT FROM COALESCE(o.host, m.host))`,
      [JSON.stringify(members.map((m) => ({ instance_id: m.instanceId, health: m.lost ? 'down' : m.health, host: m.host })))],
    );
  }

  /**
   * Takes the instance out of its cluster's balancer, if it is a member:
   * its delete calls this before the address goes back to the network, so
   * a balancer never sends a request to an address another resource may
   * hold next.
   */
  async removeBackendOf(instanceId: string): Promise<void> {
    const [row]: Array<{ clusterId: string; address: string | null; port: number }> = await this.dataSource.query(
      `SELECT m.cluster_id AS "clusterId", host(i.address) AS address, c.port FROM cluster_members m JOIN instances i ON i.id = m.instance_id JOIN clusters c ON c.id = m.cluster_id
        WHERE m.instance_id = $1`,
      [instanceId],
    );
    if (row?.address) await this.removeBackend(row.clusterId, { address: row.address, port: row.port });
  }

  removeBackend(clusterId: string, backend: BackendSpec): Promise<void> {
    return this.balancer.removeBackend(clusterListenerId(clusterId), backend);
  }
}

/** Why an instance in this state is no longer a member, or null. */
function lostReason(status: string, running: boolean, reason: string | null): string | null {
  switch (status) {
    case 'ERROR':
      return `its instance failed${reason ? `: ${reason}` : ''}`;
    case 'DELETING':
      return 'its instance was deleted';
    case 'SHUTOFF':
      return 'its process exited';
    case 'ACTIVE':
      return running ? null : 'its process exited';
    default:
      return null;
  }
}
