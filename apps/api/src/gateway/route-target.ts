import { BadRequestException, Injectable } from '@nestjs/common';
import { AppConfig, checkTargetIp, findLeaseHolder, Instance, LeaseHolder } from '@stratus/core';
import { shadowedByWildcard } from '@stratus/providers';
import { DataSource } from 'typeorm';

/**
 * Where a gateway route or a proxy host may send traffic: only to an
 * address leased to a resource of the caller's own project, and only to a
 * listener that resource holds. One place for both, since a proxy host's
 * forward (its instance's address and forwardPort) is a target like a
 * route's targetIp:targetPort.
 */
@Injectable()
export class RouteTargets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * A route's targetIp and targetPort: the canonical address and the lease
   * (resource id) that holds it, or 400. An address nobody holds and another
   * project's answer alike, so the answer tells nothing about other
   * projects' addresses.
   */
  async address(targetIp: string, targetPort: number, projectId: string): Promise<{ address: string; lease: string }> {
    const verdict = checkTargetIp(targetIp, this.config.gatewayAllowedNetworks);
    if (!verdict.ok) throw new BadRequestException(`targetIp: ${verdict.reason}`);
    const holder = await findLeaseHolder(this.dataSource, verdict.address);
    if (!holder || holder.projectId !== projectId) {
      throw new BadRequestException(`targetIp: ${verdict.address} is not the address of an instance or database of your project`);
    }
    this.checkListener(holder, verdict.address, targetPort, 'targetPort');
    return { address: verdict.address, lease: holder.resourceId };
  }

  /**
   * A proxy host's forward: the instance (already checked to be the
   * caller's) must still hold its address, and `port` there must not be a
   * host service's.
   */
  async instancePort(instance: Pick<Instance, 'id' | 'address'>, port: number, portField: string): Promise<void> {
    const holder = await findLeaseHolder(this.dataSource, instance.address);
    if (!holder || holder.resourceId !== instance.id) {
      throw new BadRequestException(`instanceId: instance ${instance.id} holds no address now (it is being deleted)`);
    }
    this.checkListener(holder, instance.address, port, portField);
  }

  /**
   * On the local provider every resource shares the host's network: with
   * nothing bound to exactly address:port, a connection there lands on a
   * host service listening on the wildcard address. Nothing listening at
   * all is fine (the resource may start its server later).
   */
  private checkListener(holder: LeaseHolder, address: string, port: number, field: string): void {
    if (shadowedByWildcard(address, port)) {
      throw new BadRequestException(
        `${field}: ${address}:${port} would reach a service of the host listening on all addresses, not the ${holder.kind}; ` +
          `have the ${holder.kind} listen on ${address} itself`,
      );
    }
  }
}
