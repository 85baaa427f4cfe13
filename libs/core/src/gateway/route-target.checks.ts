import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { Invalid } from '../errors/domain-errors';
import { Instance } from '../instances/instance.entity';
import { AddressHolder, findAddressHolder } from './address-holder';
import { checkTargetIp } from './target-ip';

/**
 * Whether a connection to `address:port` would land on a host service
 * listening on the wildcard address. The provider knows (libs/providers'
 * shadowedByWildcard for the local one); libs/providers depends on libs/core,
 * so the process hands it in through CoreModule.register.
 */
export type ShadowedByWildcard = (address: string, port: number) => boolean;
export const SHADOWED_BY_WILDCARD = Symbol('SHADOWED_BY_WILDCARD');

/**
 * Where a gateway route or a proxy host may send traffic: only to the
 * address a resource of the caller's own project holds now (as its record
 * says: whatever provider assigned it), and only to a listener that
 * resource holds. One place for both, since a proxy host's
 * forward (its instance's address and forwardPort) is a target like a
 * route's targetIp:targetPort.
 */
@Injectable()
export class RouteTargetChecks {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    @Inject(SHADOWED_BY_WILDCARD) private readonly shadowedByWildcard: ShadowedByWildcard,
  ) {}

  /**
   * A route's targetIp and targetPort: the canonical address and the key of
   * the resource that holds it (the route's `target_lease`), or Invalid. An
   * address nobody holds (none given yet, or released) and another
   * project's answer alike, so the answer tells nothing about other
   * projects' addresses. The database checks the key again when the route
   * is written (migration NetworkDriverAddresses), so a resource deleted
   * meanwhile cannot be a target.
   */
  async address(targetIp: string, targetPort: number, projectId: string): Promise<{ address: string; lease: string }> {
    const verdict = checkTargetIp(targetIp, this.config.gatewayAllowedNetworks);
    if (!verdict.ok) throw new Invalid('targetIp', verdict.reason);
    const holder = await findAddressHolder(this.dataSource, verdict.address);
    if (!holder || holder.projectId !== projectId) {
      throw new Invalid('targetIp', `${verdict.address} is not the address of an instance or database of your project`);
    }
    this.checkListener(holder, verdict.address, targetPort, 'targetPort');
    return { address: verdict.address, lease: holder.resourceId };
  }

  /**
   * A proxy host's forward: the instance (already checked to be the
   * caller's) must hold an address (one being built has none until the
   * worker assigns it; one being deleted has given it up), and `port` there
   * must not be a host service's.
   */
  async instancePort(instance: Pick<Instance, 'id' | 'address' | 'status'>, port: number, portField: string): Promise<void> {
    if (instance.status === 'DELETING') throw new Invalid('instanceId', `instance ${instance.id} holds no address now (it is being deleted)`);
    if (instance.address === null) {
      throw new Invalid('instanceId', `instance ${instance.id} has no address yet (it is being built); try again once metadata.privateIp is set`);
    }
    this.checkListener({ kind: 'instance' }, instance.address, port, portField);
  }

  /**
   * On the local provider every resource shares the host's network: with
   * nothing bound to exactly address:port, a connection there lands on a
   * host service listening on the wildcard address. Nothing listening at
   * all is fine (the resource may start its server later).
   */
  private checkListener(holder: Pick<AddressHolder, 'kind'>, address: string, port: number, field: string): void {
    if (this.shadowedByWildcard(address, port)) {
      throw new Invalid(
        field,
        `${address}:${port} would reach a service of the host listening on all addresses, not the ${holder.kind}; ` + `have the ${holder.kind} listen on ${address} itself`,
      );
    }
  }
}
