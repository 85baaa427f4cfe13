import { Delete, Get, HttpCode, Param, Query, Type, UseInterceptors } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { DATABASE_STATUSES, DatabaseEngine, DatabaseRequest, ManagedDatabaseLifecycle, Principal } from '@stratus/core';
import { pageRequest, StatusListQuery, WaitQuery } from '../http/list-query';
import { ApiListResponse, LongPoll } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { ApiKeyAuth } from '../auth/api-key.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ManagedView, presentCreated, presentDatabase } from './database.presenter';
import { ProvisioningRetryAfterInterceptor } from './retry-after.interceptor';

/** `?status=` takes the statuses the lists show. */
class DatabaseListQuery extends StatusListQuery(DATABASE_STATUSES) {}

/**
 * List, get and delete, the same for /v1/databases, /v1/cache and
 * /v1/analytics. Each collection's controller extends the class made here
 * for its engine (and the body its list and get show) with its path and its
 * create route (whose DTO differs).
 */
export function ManagedDatabasesController(engine: DatabaseEngine, view: Type<ManagedView>) {
  @ApiKeyAuth()
  @UseInterceptors(ProvisioningRetryAfterInterceptor)
  abstract class ManagedDatabasesControllerBase {
    constructor(protected readonly databases: ManagedDatabaseLifecycle) {}

    protected async created(request: DatabaseRequest, principal: Principal) {
      const { row, password } = await this.databases.create(engine, request, principal);
      return presentCreated(row, password);
    }

    @Get()
    @ApiOperation({ summary: "The project's servers of this kind, newest first, a page at a time (no passwords); ?wait= long-polls for a change" })
    @ApiListResponse(view)
    @LongPoll('managed_databases')
    async list(@Query() query: DatabaseListQuery, @CurrentPrincipal() principal: Principal, @Links() links: PageLinks): Promise<ManagedView[]> {
      return links.answer(await this.databases.list(engine, principal, pageRequest(query)), presentDatabase);
    }

    @Get(':id')
    @ApiOperation({ summary: 'One server of this kind (no password); ?wait= long-polls for a change, as for ready' })
    @ApiOkResponse({ type: view })
    @ApiForbiddenResponse({ description: "another project's server" })
    @ApiNotFoundResponse({ description: 'no such server in this collection' })
    @LongPoll('managed_databases')
    async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal, @Query() _wait: WaitQuery): Promise<ManagedView> {
      return presentDatabase(await this.databases.get(engine, id, principal));
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a server of this kind' })
    @ApiNoContentResponse({ description: 'deletion started: the server stops, its data and address go, then it leaves the list' })
    @ApiForbiddenResponse({ description: "another project's server" })
    @ApiNotFoundResponse({ description: 'no such server in this collection' })
    delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
      return this.databases.delete(engine, id, principal);
    }
  }
  return ManagedDatabasesControllerBase;
}
