import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InstanceLifecycle, Principal } from '@stratus/core';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { CreateInstanceDto } from './create-instance.dto';
import { InstanceCreatedView, InstanceDetailView, InstanceListItemView, presentCreated, presentDetail, presentListItem } from './instance.presenter';

@ApiTags('instances')
@ApiKeyAuth()
@Controller('v1/instances')
export class InstancesController {
  constructor(private readonly instances: InstanceLifecycle) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create an instance; it boots asynchronously (poll the list until ACTIVE)' })
  @ApiAcceptedResponse({
    description:
      'status building. The worker has the network assign its address (metadata.privateIp, and address in the detail, appear then); ' +
      'a network with no free address left ends it in ERROR with a status_reason naming the network',
    type: InstanceCreatedView,
  })
  @ApiBadRequestResponse({ description: 'invalid field, or an unknown image, flavor, network, keypair or security group' })
  async create(@Body() dto: CreateInstanceDto, @CurrentPrincipal() principal: Principal): Promise<InstanceCreatedView> {
    return presentCreated(await this.instances.create(dto, principal));
  }

  @Get()
  @ApiOperation({ summary: "The project's instances, newest first" })
  @ApiOkResponse({ type: [InstanceListItemView] })
  async list(@CurrentPrincipal() principal: Principal): Promise<InstanceListItemView[]> {
    return (await this.instances.list(principal)).map(presentListItem);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One instance, with the fields of its create' })
  @ApiOkResponse({ description: 'address is null (and metadata.privateIp absent) until the network assigned it', type: InstanceDetailView })
  @ApiForbiddenResponse({ description: "another project's instance" })
  @ApiNotFoundResponse({ description: 'no such instance' })
  async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<InstanceDetailView> {
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
