import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { PageQuery } from '../http/cursor';
import { CatalogService } from './catalog.service';

@ApiTags('catalog')
@ApiKeyAuth()
@Controller('v1')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('flavors')
  @ApiOperation({ summary: 'Compute sizes, {items, next_cursor}' })
  flavors(@Query() query: PageQuery) {
    return this.catalog.flavors(query);
  }

  @Get('security_groups')
  @ApiOperation({ summary: 'Security groups with their rules, {items, next_cursor}' })
  securityGroups(@Query() query: PageQuery) {
    return this.catalog.securityGroups(query);
  }

  @Get('images')
  @ApiOperation({ summary: 'Images that instances boot from (image_id)' })
  images(@Query() query: PageQuery) {
    return this.catalog.images(query);
  }

  @Get('networks')
  @ApiOperation({ summary: 'Private networks (network_id)' })
  networks(@Query() query: PageQuery) {
    return this.catalog.networks(query);
  }

  @Get('keypairs')
  @ApiOperation({ summary: 'SSH keypairs (keypair_name)' })
  keypairs(@Query() query: PageQuery) {
    return this.catalog.keypairs(query);
  }
}
