import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Principal } from '@stratus/core';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { PageQuery } from '../http/cursor';
import { LINK_HEADER } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { CatalogService } from './catalog.service';
import { FlavorPage, ImagePage, KeypairPage, NetworkPage, SecurityGroupPage } from './catalog.views';

@ApiTags('catalog')
@ApiKeyAuth()
@ApiBadRequestResponse({ description: 'limit out of 1..100, or a cursor this API did not issue' })
@Controller('v1')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('flavors')
  @ApiOperation({ summary: 'Compute sizes, {items, next_cursor}' })
  @ApiOkResponse({ type: FlavorPage, headers: LINK_HEADER })
  async flavors(@Query() query: PageQuery, @Links() links: PageLinks) {
    return links.paged(await this.catalog.flavors(query));
  }

  @Get('security_groups')
  @ApiOperation({ summary: 'Security groups with their rules, {items, next_cursor}' })
  @ApiOkResponse({ type: SecurityGroupPage, headers: LINK_HEADER })
  async securityGroups(@Query() query: PageQuery, @Links() links: PageLinks) {
    return links.paged(await this.catalog.securityGroups(query));
  }

  @Get('images')
  @ApiOperation({ summary: "Images that instances boot from (image_id): the provider's and the project's own snapshots" })
  @ApiOkResponse({ type: ImagePage, headers: LINK_HEADER })
  async images(@Query() query: PageQuery, @Links() links: PageLinks, @CurrentPrincipal() principal: Principal) {
    return links.paged(await this.catalog.images(query, principal.projectId));
  }

  @Get('networks')
  @ApiOperation({ summary: 'Private networks (network_id)' })
  @ApiOkResponse({ type: NetworkPage, headers: LINK_HEADER })
  async networks(@Query() query: PageQuery, @Links() links: PageLinks) {
    return links.paged(await this.catalog.networks(query));
  }

  @Get('keypairs')
  @ApiOperation({ summary: 'SSH keypairs (keypair_name)' })
  @ApiOkResponse({ type: KeypairPage, headers: LINK_HEADER })
  async keypairs(@Query() query: PageQuery, @Links() links: PageLinks) {
    return links.paged(await this.catalog.keypairs(query));
  }
}
