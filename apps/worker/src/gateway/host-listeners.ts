import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { LOAD_BALANCER_DRIVER, LoadBalancerDriver } from '@stratus/providers';
import { DataSource } from 'typeorm';
import { hostListener, hostListenerId, ProxyHostTarget } from './host-listener';
import { makeOneBackend, OneBackendListener } from './one-backend-listener';

/** How often one apply looks again when the proxy host changed while it made the listener; the next job or sweep does the rest. */
const MAX_PASSES = 3;

/**
 * A proxy host of a cluster (one that moved from the instance the cluster
 * was made from) forwards to the cluster's balancer: its address, and the
 * cluster's port, which its forward_port holds.
 */
const TARGETS = `SELECT p.id, p.hostname, p.forward_port AS "forwardPort", p.instance_id AS "instanceId",
                        COALESCE(host(i.address), host(c.address)) AS address, COALESCE(i.status, 'ACTIVE') AS "instanceStatus"
                 FROM proxy_hosts p LEFT JOIN instances i ON i.id = p.instance_id LEFT JOIN clusters c ON c.id = p.cluster_id`;

/**
 * Proxy hosts' listeners on the load-balancer driver, for the host jobs,
 * the reconciler and the instance delete job alike. Level-based: each look
 * reads what the proxy host asks now and brings its listener to that, so a
 * repeated, late or out-of-order job does no harm.
 */
@Injectable()
export class HostListeners {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    @Inject(LOAD_BALANCER_DRIVER) private readonly driver: LoadBalancerDriver,
  ) {}

  /** The edge's HTTP listener the listeners are on; null when the configuration has none (EDGE_HTTP_PORT=0). */
  get http(): { host: string; port: number } | null {
    return this.config.EDGE_HTTP_PORT ? { host: this.config.EDGE_HTTP_HOST, port: this.config.EDGE_HTTP_PORT } : null;
  }

  async target(proxyHostId: string): Promise<ProxyHostTarget | null> {
    const [row] = await this.dataSource.query(`${TARGETS} WHERE p.id = $1`, [proxyHostId]);
    return row ?? null;
  }

  /** Every proxy host with what its instance holds, for the reconciler. */
  targets(): Promise<ProxyHostTarget[]> {
    return this.dataSource.query(`${TARGETS} ORDER BY p.id`);
  }

  want(target: ProxyHostTarget | null): OneBackendListener | null {
    return target && hostListener(target, this.http);
  }

  /**
   * Brings the proxy host's listener to what it asks now: made while its
   * instance holds an address, gone otherwise (the proxy host deleted, its
   * instance not given an address yet or giving it up). It looks again
   * after each change: a change that came meanwhile (a delete, the address
   * given up by the instance's delete job) wins, so a listener is never
   * left as a proxy host or instance that moved on had it. Returns
   * 'waiting' when its instance is still to be given an address.
   */
  async apply(proxyHostId: string): Promise<'made' | 'none' | 'waiting'> {
    const id = hostListenerId(proxyHostId);
    let target = await this.target(proxyHostId);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const want = this.want(target);
      if (!want) {
        // Looked at first: a delete tells the edge even when there was nothing, and a waiting job looks often.
        if (await this.driver.observe(id)) await this.driver.deleteListener(id);
        return target && !target.address && target.instanceStatus === 'BUILD' ? 'waiting' : 'none';
      }
      await makeOneBackend(this.driver, want, await this.driver.observe(id));
      const now = await this.target(proxyHostId);
      if (JSON.stringify(this.want(now)) === JSON.stringify(want)) return 'made';
      target = now;
    }
    return 'made';
  }

  /**
   * Deletes the listeners of the instance's proxy hosts: its delete job
   * calls this once the row gave up its address and before the network
   * has it back, so no name still leads to the address once it may be
   * assigned to another project. (The proxy hosts themselves go with the
   * row, later; their delete jobs would wait for the outbox relay.) An
   * apply that read the address before it was given up sees that it was
   * and deletes what it made.
   */
  async removeOf(instanceId: string): Promise<void> {
    const rows: Array<{ id: string }> = await this.dataSource.query(`SELECT id FROM proxy_hosts WHERE instance_id = $1`, [instanceId]);
    for (const { id } of rows) await this.driver.deleteListener(hostListenerId(id));
  }
}
