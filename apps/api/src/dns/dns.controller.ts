import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ListQuery, pageRequest, WaitQuery } from '../http/list-query';
import { ApiListResponse, LongPoll } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppConfig, InstanceLifecycle, Principal, ProxyHostLifecycle } from '@stratus/core';
import { BearerAuth, PublicRoute } from '../auth/bearer.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { CreateProxyHostDto, UpdateDnsDto, UpdateProxyHostDto } from './dns.dto';
import { MessageView } from '../http/message.view';
import { MetadataMergedView, presentProxyHost, ProxyHostView } from './proxy-host.presenter';
import { Idempotent } from '../http/idempotency.interceptor';
import { QuotaLimited } from '../http/quota.openapi';

const NOT_FOUND = 'no such proxy host (or, with a token, not one of your project)';

@ApiTags('dns')
@BearerAuth()
@Controller('api/cloud/dns')
export class DnsController {
  constructor(
    private readonly proxyHosts: ProxyHostLifecycle,
    private readonly instances: InstanceLifecycle,
    private readonly config: AppConfig,
  ) {}

  /** Where the edge serves proxy hosts, for their `url`. */
  private get httpPort(): number {
    return this.config.EDGE_HTTP_PORT;
  }

  @Post('create')
  @Idempotent()
  @ApiOperation({ summary: 'Create a proxy host: a name the edge routes to a port of one of your instances' })
  @ApiCreatedResponse({ description: 'the proxy host', type: ProxyHostView })
  @ApiBadRequestResponse({ description: 'invalid field, or a name outside the domain suffix' })
  @ApiNotFoundResponse({ description: 'no such instance' })
  @QuotaLimited(['proxy_hosts'], "another project's instance")
  @ApiConflictResponse({ description: 'the name is taken' })
  async create(@Body() dto: CreateProxyHostDto, @CurrentPrincipal() principal: Principal): Promise<ProxyHostView> {
    return presentProxyHost(await this.proxyHosts.create(dto, principal), this.httpPort);
  }

  @Post('update-dns')
  @HttpCode(200)
  @ApiOperation({ summary: "Merge string values into an instance's metadata (as GET /v1/instances shows it)" })
  @ApiOkResponse({ type: MetadataMergedView })
  @ApiForbiddenResponse({ description: "another project's instance" })
  @ApiNotFoundResponse({ description: 'no such instance' })
  updateDns(@Body() dto: UpdateDnsDto, @CurrentPrincipal() principal: Principal): Promise<MetadataMergedView> {
    return this.instances.mergeMetadata(dto.instanceId, dto.metadata, principal);
  }

  @Get('list')
  @PublicRoute()
  @ApiOperation({ summary: "Proxy hosts: with a token your project's; without one (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH) every project's" })
  @ApiListResponse(ProxyHostView)
  @LongPoll('proxy_hosts')
  async list(@Query() query: ListQuery, @CurrentPrincipal() principal: Principal | undefined, @Links() links: PageLinks): Promise<ProxyHostView[]> {
    return links.answer(await this.proxyHosts.list(principal, pageRequest(query)), (p) => presentProxyHost(p, this.httpPort));
  }

  @Get('proxy-hosts/:proxyHostId')
  @PublicRoute()
  @ApiOperation({ summary: 'One proxy host (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH; with a token, only your own)' })
  @ApiOkResponse({ type: ProxyHostView })
  @ApiBadRequestResponse({ description: 'not a proxy host id' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @LongPoll('proxy_hosts')
  async get(@Param('proxyHostId') id: string, @CurrentPrincipal() principal: Principal | undefined, @Query() _wait: WaitQuery): Promise<ProxyHostView> {
    return presentProxyHost(await this.proxyHosts.get(id, principal), this.httpPort);
  }

  @Put('proxy-hosts/:proxyHostId')
  @PublicRoute()
  @ApiOperation({ summary: 'Change forwardPort and/or domain (body: {updateData: {...}})' })
  @ApiOkResponse({ type: ProxyHostView })
  @ApiBadRequestResponse({ description: 'not a proxy host id, or an invalid field' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiConflictResponse({ description: 'the new name is taken' })
  async update(@Param('proxyHostId') id: string, @Body() dto: UpdateProxyHostDto, @CurrentPrincipal() principal: Principal | undefined): Promise<ProxyHostView> {
    return presentProxyHost(await this.proxyHosts.update(id, dto.updateData, principal), this.httpPort);
  }

  @Delete('proxy-hosts/:proxyHostId')
  @PublicRoute()
  @ApiOperation({ summary: 'Delete a proxy host; the edge stops serving its name' })
  @ApiOkResponse({ type: MessageView })
  @ApiBadRequestResponse({ description: 'not a proxy host id' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async delete(@Param('proxyHostId') id: string, @CurrentPrincipal() principal: Principal | undefined): Promise<MessageView> {
    await this.proxyHosts.delete(id, principal);
    return { message: 'Proxy host deleted successfully' };
  }
}
