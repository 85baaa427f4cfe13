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
  @ApiOperation({ summary: 'Delete a cluster: DELETE_IN_PROGRESS while its members are drained and removed, then its balancer; it leaves the list when gone' })
  @ApiNoContentResponse({ description: 'deletion started' })
  @ApiForbiddenResponse({ description: "another project's cluster" })
  @ApiNotFoundResponse({ description: 'no such cluster' })
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.clusters.delete(id, principal);
  }
}
