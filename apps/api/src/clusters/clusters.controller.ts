import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AppConfig, CLUSTER_STATUSES, ClusterLifecycle, Principal } from '@stratus/core';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { Idempotent } from '../http/idempotency.interceptor';
import { pageRequest, StatusListQuery } from '../http/list-query';
import { ApiListResponse } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { ClusterCreatedView, ClusterView, presentCluster, presentCreated } from './cluster.presenter';
import { CreateClusterFromInstanceDto } from './create-cluster-from-instance.dto';
import { CreateClusterDto } from './create-cluster.dto';
import { UpdateClusterDto } from './update-cluster.dto';

/** `?status=` takes the statuses the list shows. */
class ClusterListQuery extends StatusListQuery(CLUSTER_STATUSES) {}

@ApiTags('clusters')
@ApiKeyAuth()
@Controller('v1/clusters')
export class ClustersController {
  private readonly edge: { port: number };

  constructor(
    private readonly clusters: ClusterLifecycle,
    config: AppConfig,
  ) {
    this.edge = { port: config.EDGE_HTTP_PORT };
  }

  @Post()
  @Idempotent()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a cluster: members built one at a time behind a load balancer (poll the list until CREATE_COMPLETE)' })
  @ApiCreatedResponse({ description: 'stack creation started: status CREATE_IN_PROGRESS, progress 0/min_size', type: ClusterCreatedView })
  @ApiBadRequestResponse({
    description:
      'invalid field (named in the message), max_size below min_size, scale_in_threshold not below scale_out_threshold, or an unknown image, flavor, network, subnet or keypair',
  })
  @ApiConflictResponse({ description: 'the dnsName is taken' })
  async create(@Body() dto: CreateClusterDto, @CurrentPrincipal() principal: Principal): Promise<ClusterCreatedView> {
    return presentCreated({ cluster: await this.clusters.create(dto, principal), members: [], events: [] }, this.edge);
  }

  @Post('from-instance')
  @Idempotent()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Make a cluster of a running instance, keeping its URL (poll the list until CREATE_COMPLETE)',
    description: [
      'The instance becomes the first member as it runs: not rebuilt, not restarted. The other members boot from a snapshot image of it',
      "(its files, what its image runs at boot; not its user_data or the platform's files), which is the cluster's `image_id` and an image",
      "of your project only (GET /v1/images). Once the instance passes the balancer's health check, its URL moves to the balancer, so it",
      "answers throughout: its proxy hosts that forward to its port (their `clusterId` is then the cluster's, `instanceId` null) and its",
      "gateway routes to that port (their targetIp the balancer's address). Deleting the cluster deletes every member, this instance",
      'included, and with it those proxy hosts, routes and the snapshot image. A build that fails leaves the instance running as a member',
      'behind the balancer, its URL still answering.',
    ].join(' '),
  })
  @ApiCreatedResponse({ description: 'stack creation started: status CREATE_IN_PROGRESS, the instance linked as the first member', type: ClusterCreatedView })
  @ApiBadRequestResponse({
    description:
      "invalid field (named in the message), as POST /v1/clusters; `image` sent; `port` other than the instance's; `backend_network_id` other than the instance's network",
  })
  @ApiForbiddenResponse({ description: "instance_id is another project's instance" })
  @ApiNotFoundResponse({ description: 'no such instance' })
  @ApiConflictResponse({ description: 'the instance is not ACTIVE, or already a member of a cluster; or the dnsName is taken' })
  async createFromInstance(@Body() dto: CreateClusterFromInstanceDto, @CurrentPrincipal() principal: Principal): Promise<ClusterCreatedView> {
    const cluster = await this.clusters.createFromInstance(dto, principal);
    return presentCreated(await this.clusters.states([cluster]).then(([state]) => state), this.edge);
  }

  @Get()
  @ApiOperation({ summary: "The project's clusters, newest first, a page at a time, with build progress, members, balancer, events and placement" })
  @ApiListResponse(ClusterView)
  async list(@Query() query: ClusterListQuery, @CurrentPrincipal() principal: Principal, @Links() links: PageLinks): Promise<ClusterView[]> {
    return links.answer(await this.clusters.list(principal, pageRequest(query)), (s) => presentCluster(s, this.edge));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One cluster' })
  @ApiOkResponse({ type: ClusterView })
  @ApiForbiddenResponse({ description: "another project's cluster" })
  @ApiNotFoundResponse({ description: 'no such cluster' })
  async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ClusterView> {
    return presentCluster(await this.clusters.get(id, principal), this.edge);
  }

  @Put(':id')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Update a cluster (fields left out keep their values): sizes and thresholds at once; a new image, flavor, key_name or user_data replaces the members one at a time, each new one serving before an old one drains. Poll until UPDATE_COMPLETE (or UPDATE_FAILED, with the reason)',
  })
  @ApiAcceptedResponse({ description: 'update started: status UPDATE_IN_PROGRESS (unchanged when nothing changes)', type: ClusterView })
  @ApiBadRequestResponse({
    description:
      'invalid field (named in the message): the same rules as create, desired_size outside min_size..max_size, or a change of port, dnsName, backend_network_id or backend_subnet_id',
  })
  @ApiForbiddenResponse({ description: "another project's cluster" })
  @ApiNotFoundResponse({ description: 'no such cluster' })
  @ApiConflictResponse({ description: 'the cluster is being built, failed to build, or is being deleted (CREATE_IN_PROGRESS, CREATE_FAILED, DELETE_IN_PROGRESS, DELETE_FAILED)' })
  async update(@Param('id') id: string, @Body() dto: UpdateClusterDto, @CurrentPrincipal() principal: Principal): Promise<ClusterView> {
    return presentCluster(await this.clusters.update(id, dto, principal), this.edge);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a cluster: DELETE_IN_PROGRESS while its members are drained and removed, then its balancer; it leaves the list when gone',
    description:
      'Every member goes. A cluster made from an instance (`source_instance_id`) takes that instance with it, and the proxy hosts and gateway routes that moved to it, and its snapshot image.',
  })
  @ApiNoContentResponse({ description: 'deletion started' })
  @ApiForbiddenResponse({ description: "another project's cluster" })
  @ApiNotFoundResponse({ description: 'no such cluster' })
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.clusters.delete(id, principal);
  }
}
