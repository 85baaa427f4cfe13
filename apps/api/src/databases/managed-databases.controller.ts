import { Delete, Get, HttpCode, Param, UseInterceptors } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOperation } from '@nestjs/swagger';
import { DatabaseEngine, DatabaseRequest, ManagedDatabaseLifecycle, Principal } from '@stratus/core';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { presentCreated, presentDatabase } from './database.presenter';
import { ProvisioningRetryAfterInterceptor } from './retry-after.interceptor';

/**
 * List, get and delete, the same for /v1/databases, /v1/cache and
 * /v1/analytics. Each collection's controller extends this with its path,
 * its engine and its create route (whose DTO differs).
 */
@ApiKeyAuth()
@UseInterceptors(ProvisioningRetryAfterInterceptor)
export abstract class ManagedDatabasesController {
  protected abstract readonly engine: DatabaseEngine;

  constructor(protected readonly databases: ManagedDatabaseLifecycle) {}

  protected async created(request: DatabaseRequest, principal: Principal) {
    const { row, password } = await this.databases.create(this.engine, request, principal);
    return presentCreated(row, password);
  }

  @Get()
  @ApiOperation({ summary: "The project's servers of this kind, newest first (no passwords)" })
  async list(@CurrentPrincipal() principal: Principal) {
    return (await this.databases.list(this.engine, principal)).map(presentDatabase);
  }

  @Get(':id')
  @ApiForbiddenResponse({ description: "another project's server" })
  @ApiNotFoundResponse({ description: 'no such server in this collection' })
  async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return presentDatabase(await this.databases.get(this.engine, id, principal));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deletion started: the server stops, its data and address go, then it leaves the list' })
  @ApiForbiddenResponse({ description: "another project's server" })
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.databases.delete(this.engine, id, principal);
  }
}
