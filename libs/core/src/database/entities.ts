import { AddressLease } from '../addresses/address-lease.entity';
import { ClusterEvent } from '../clusters/cluster-event.entity';
import { ClusterMember } from '../clusters/cluster-member.entity';
import { Cluster } from '../clusters/cluster.entity';
import { Flavor, Image, Keypair, Network, SecurityGroup } from '../catalog/catalog.entities';
import { ManagedDatabase } from '../databases/managed-database.entity';
import { ProxyHost } from '../dns/proxy-host.entity';
import { EdgeNode } from '../edge/edge-node.entity';
import { Certificate } from '../gateway/certificate.entity';
import { GatewayRoute } from '../gateway/gateway-route.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Instance } from '../instances/instance.entity';
import { LoadBalancerBackend } from '../load-balancers/load-balancer-backend.entity';
import { LoadBalancer } from '../load-balancers/load-balancer.entity';
import { OutboxEntry } from '../outbox/outbox.entity';
import { ApiKey } from '../projects/api-key.entity';
import { Project } from '../projects/project.entity';
import { ProjectQuota } from '../quotas/project-quota.entity';
import { Volume } from '../volumes/volume.entity';

export const ENTITIES = [
  Project,
  ApiKey,
  OutboxEntry,
  AddressLease,
  Flavor,
  Image,
  Network,
  Keypair,
  SecurityGroup,
  Instance,
  Volume,
  GatewayRoute,
  Certificate,
  ProxyHost,
  EdgeNode,
  ManagedDatabase,
  LoadBalancer,
  LoadBalancerBackend,
  IdempotencyKey,
  ProjectQuota,
  Cluster,
  ClusterMember,
  ClusterEvent,
];
