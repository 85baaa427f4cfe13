import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { INSTANCE_STATUSES, InstanceLifecycle, Principal } from '@stratus/core';
import { pageRequest, StatusListQuery, WaitQuery } from '../http/list-query';
import { ApiListResponse, LongPoll } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { CreateInstanceDto } from './create-instance.dto';
import { InstanceCreatedView, InstanceDetailView, InstanceListItemView, presentCreated, presentDetail, presentListItem } from './instance.presenter';
import { Idempotent } from '../http/idempotency.interceptor';
import { QuotaLimited } from '../http/quota.openapi';

/** `?status=` takes the statuses the list shows. */
class InstanceListQuery extends StatusListQuery(INSTANCE_STATUSES) {}

@ApiTags('instances')
@ApiKeyAuth()
@Controller('v1/instances')
export class InstancesController {
  constructor(private readonly instances: InstanceLifecycle) {}

  @Post()
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create an instance; it boots asynchronously (poll the list until ACTIVE)' })
  @ApiAcceptedResponse({
    description:
      'status building. The worker has the network assign its address (metadata.privateIp, and address in the detail, appear then); ' +
      'a network with no free address left ends it in ERROR with a status_reason naming the network',
    type: InstanceCreatedView,
  })
  @ApiBadRequestResponse({ description: 'invalid field, or an unknown image, flavor, network, keypair or security group' })
  @QuotaLimited(['instances', 'proxy_hosts', 'volume_gb'])
  async create(@Body() dto: CreateInstanceDto, @CurrentPrincipal() principal: Principal): Promise<InstanceCreatedView> {
    return presentCreated(await this.instances.create(dto, principal));
  }

  @Get()
  @ApiOperation({ summary: "The project's instances, newest first, a page at a time; ?wait= long-polls for a change" })
  @ApiListResponse(InstanceListItemView)
  @LongPoll('instances')
  async list(@Query() query: InstanceListQuery, @CurrentPrincipal() principal: Principal, @Links() links: PageLinks): Promise<InstanceListItemView[]> {
    return links.answer(await this.instances.list(principal, pageRequest(query)), presentListItem);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One instance, with the fields of its create; ?wait= long-polls for a change' })
  @ApiOkResponse({ description: 'address is null (and metadata.privateIp absent) until the network assigned it', type: InstanceDetailView })
  @ApiForbiddenResponse({ description: "another project's instance" })
  @ApiNotFoundResponse({ description: 'no such instance' })
  @LongPoll('instances')
  async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal, @Query() _wait: WaitQuery): Promise<InstanceDetailView> {
    return presentDetail(await this.instances.get(id, principal));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an instance; it is DELETING until it is gone' })
  @ApiNotFoundResponse({ description: 'no such instance' })
  @ApiNoContentResponse({ description: 'deletion started; the instance disappears from the list when it is gone' })
  @ApiForbiddenResponse({ description: "another project's instance" })
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.instances.delete(id, principal);
  }
}
