import { Delete, Get, HttpCode, Param, Post, Query, Type, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AppConfig, DATABASE_STATUSES, DatabaseEngine, DatabaseRequest, EngineSet, ManagedDatabaseLifecycle, Principal } from '@stratus/core';
import { pageRequest, StatusListQuery, WaitQuery } from '../http/list-query';
import { ApiListResponse, LongPoll } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ManagedCreatedView, ManagedView, presentCreated, presentDatabase } from './database.presenter';
import { ProvisioningRetryAfterInterceptor } from './retry-after.interceptor';

/** `?status=` takes the statuses the lists show. */
class DatabaseListQuery extends StatusListQuery(DATABASE_STATUSES) {}

/**
 * List, get, delete and reset-password, the same for /v1/databases,
 * /v1/cache, /v1/analytics and /v1/relational-databases. Each collection's
 * controller extends the class made here for its engines (and the body its
 * list and get show) with its path and its create route (whose DTO differs).
 */
export function ManagedDatabasesController(engines: EngineSet, view: Type<ManagedView>, createdView: Type<ManagedCreatedView>) {
  @ApiKeyAuth()
  @UseInterceptors(ProvisioningRetryAfterInterceptor)
  abstract class ManagedDatabasesControllerBase {
    constructor(
      protected readonly databases: ManagedDatabaseLifecycle,
      private readonly config: AppConfig,
    ) {}

    /** `engine` when the collection serves more than one. */
    protected async created(request: DatabaseRequest, principal: Principal, engine: DatabaseEngine = engines[0]) {
      const { row, password } = await this.databases.create(engine, request, principal);
      return presentCreated(row, password);
    }

    @Post(':id/reset-password')
    @HttpCode(200)
    @ApiOperation({
      summary: 'A new password for a ready server, returned once',
      description:
        'Answers once the server holds the newly generated password and refuses the old one (or, should the server take longer than ' +
        'DATABASE_PASSWORD_RESET_WAIT_MS, with the password it is about to take). Sessions opened with the old password stay open on ' +
        'PostgreSQL, MariaDB and MySQL; Redis and ClickHouse restart to take it, which ends their open connections.',
    })
    @ApiOkResponse({ type: createdView, description: 'the create response with the new password, in this answer only' })
    @ApiConflictResponse({ description: 'the server is not ready (provisioning, error or deleting)' })
    @ApiForbiddenResponse({ description: "another project's server" })
    @ApiNotFoundResponse({ description: 'no such server in this collection' })
    async resetPassword(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ManagedCreatedView> {
      const { row, password } = await this.databases.resetPassword(engines, id, principal, this.config.DATABASE_PASSWORD_RESET_WAIT_MS);
      return presentCreated(row, password);
    }

    @Get()
    @ApiOperation({ summary: "The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change" })
    @ApiListResponse(view)
    @LongPoll('managed_databases')
    async list(@Query() query: DatabaseListQuery, @CurrentPrincipal() principal: Principal, @Links() links: PageLinks): Promise<ManagedView[]> {
      return links.answer(await this.databases.list(engines, principal, pageRequest(query)), presentDatabase);
    }

    @Get(':id')
    @ApiOperation({ summary: 'One server of this kind (no password); ?wait= long-polls for a change, as for ready' })
    @ApiOkResponse({ type: view })
    @ApiForbiddenResponse({ description: "another project's server" })
    @ApiNotFoundResponse({ description: 'no such server in this collection' })
    @LongPoll('managed_databases')
    async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal, @Query() _wait: WaitQuery): Promise<ManagedView> {
      return presentDatabase(await this.databases.get(engines, id, principal));
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a server of this kind' })
    @ApiNoContentResponse({ description: 'deletion started: the server stops, its data and address go, then it leaves the list' })
    @ApiForbiddenResponse({ description: "another project's server" })
    @ApiNotFoundResponse({ description: 'no such server in this collection' })
    delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
      return this.databases.delete(engines, id, principal);
    }
  }
  return ManagedDatabasesControllerBase;
}
