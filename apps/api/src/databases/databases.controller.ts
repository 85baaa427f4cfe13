import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Principal, RELATIONAL_ENGINES } from '@stratus/core';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { CreateAnalyticsDto } from './create-analytics.dto';
import { CreateCacheDto } from './create-cache.dto';
import { CreateDatabaseDto } from './create-database.dto';
import { CreateRelationalDatabaseDto } from './create-relational-database.dto';
import { AnalyticsCreatedView, AnalyticsView, CacheCreatedView, CacheView, PostgresCreatedView, PostgresView, RelationalCreatedView, RelationalView } from './database.presenter';
import { ManagedDatabasesController } from './managed-databases.controller';
import { Idempotent } from '../http/idempotency.interceptor';
import { QuotaLimited } from '../http/quota.openapi';

const CREATED =
  'status provisioning; the password is in this answer only (poll GET until ready, every 15 to 30 s). ' +
  'floating_ip is null until the server is ready on the address its network assigned; a network with no free address left ends it in error with a status_reason naming the network';

@ApiTags('databases')
@Controller('v1/databases')
export class DatabasesController extends ManagedDatabasesController(['postgres'], PostgresView, PostgresCreatedView) {
  @Post()
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create a PostgreSQL database server' })
  @ApiAcceptedResponse({ description: CREATED, type: PostgresCreatedView })
  @ApiBadRequestResponse({ description: 'invalid field, or an unknown flavor, network, keypair or security group' })
  @ApiConflictResponse({ description: 'the project has a database of that name' })
  @QuotaLimited(['databases'])
  create(@Body() dto: CreateDatabaseDto, @CurrentPrincipal() principal: Principal) {
    return this.created(dto.toRequest(), principal);
  }
}

@ApiTags('cache')
@Controller('v1/cache')
export class CacheController extends ManagedDatabasesController(['redis'], CacheView, CacheCreatedView) {
  @Post()
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create a Redis cache server' })
  @ApiAcceptedResponse({ description: CREATED, type: CacheCreatedView })
  @ApiBadRequestResponse({ description: 'invalid field (ha is not accepted), or an unknown flavor, network, keypair or security group' })
  @ApiConflictResponse({ description: 'the project has a cache instance of that name' })
  @QuotaLimited(['caches'])
  create(@Body() dto: CreateCacheDto, @CurrentPrincipal() principal: Principal) {
    return this.created(dto.toRequest(), principal);
  }
}

@ApiTags('analytics')
@Controller('v1/analytics')
export class AnalyticsController extends ManagedDatabasesController(['clickhouse'], AnalyticsView, AnalyticsCreatedView) {
  @Post()
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create a ClickHouse analytics server (HTTP)' })
  @ApiAcceptedResponse({ description: CREATED, type: AnalyticsCreatedView })
  @ApiBadRequestResponse({ description: 'invalid field, or an unknown flavor, network, keypair or security group' })
  @ApiConflictResponse({ description: 'the project has an analytics instance of that name' })
  @QuotaLimited(['analytics'])
  create(@Body() dto: CreateAnalyticsDto, @CurrentPrincipal() principal: Principal) {
    return this.created(dto.toRequest(), principal);
  }
}

@ApiTags('relational-databases')
@Controller('v1/relational-databases')
export class RelationalDatabasesController extends ManagedDatabasesController(RELATIONAL_ENGINES, RelationalView, RelationalCreatedView) {
  @Post()
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Create a MariaDB or MySQL database server' })
  @ApiAcceptedResponse({ description: CREATED, type: RelationalCreatedView })
  @ApiBadRequestResponse({ description: 'invalid field (ha is not accepted; engine and version must be known), or an unknown flavor, network, keypair or security group' })
  @ApiConflictResponse({ description: 'the project has a relational database of that name' })
  create(@Body() dto: CreateRelationalDatabaseDto, @CurrentPrincipal() principal: Principal) {
    return this.created(dto.toRequest(), principal, dto.engine);
  }
}
