import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { AppConfig, GatewayRouteLifecycle, Principal } from '@stratus/core';
import { BearerAuth, PublicRoute } from '../auth/bearer.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { CreateGatewayRouteDto } from './gateway-route.dto';
import { AvailablePortView, GatewayRouteView, presentRoute, RouteDeletedView, UsedPortsView } from './gateway-route.presenter';
import { GatewayHealthView, presentGatewayHealth } from './gateway-health.presenter';
import { Idempotent } from '../http/idempotency.interceptor';
import { QuotaLimited } from '../http/quota.openapi';

@ApiTags('gateway')
@BearerAuth()
@Controller('api/cloud/gateway')
export class GatewayController {
  constructor(
    private readonly routes: GatewayRouteLifecycle,
    private readonly config: AppConfig,
  ) {}

  @Get('available-port')
  @ApiOperation({ summary: 'A port of the gateway range that no route uses and that can be bound now' })
  @ApiOkResponse({ type: AvailablePortView })
  @ApiConflictResponse({ description: 'no free port left in the range' })
  async availablePort(): Promise<AvailablePortView> {
    return { port: await this.routes.availablePort(), host: this.config.GATEWAY_HOST };
  }

  @Get('used-ports')
  @ApiOperation({ summary: "Ports of the gateway held by your project's routes (available-port avoids every project's)" })
  @ApiOkResponse({ type: UsedPortsView })
  async usedPorts(@CurrentPrincipal() principal: Principal): Promise<UsedPortsView> {
    const ports = await this.routes.usedPorts(principal);
    return { ports, count: ports.length };
  }

  @Get('health')
  @ApiOperation({ summary: 'The edge: reachable or not, listeners expected versus bound' })
  @ApiOkResponse({ type: GatewayHealthView })
  async health(@CurrentPrincipal() principal: Principal): Promise<GatewayHealthView> {
    const [node, routes] = await Promise.all([this.routes.liveEdge(), this.routes.routes(principal)]);
    return presentGatewayHealth(node, routes, this.config);
  }

  @Post('create')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a TCP route; answers once the edge has bound the listener' })
  @ApiOkResponse({ description: 'the route, status active', type: GatewayRouteView })
  @ApiBadRequestResponse({
    description: "protocol other than tcp, port outside the range, targetIp not an address of your instances or databases, targetPort a host service's, unknown certificate",
  })
  @ApiConflictResponse({ description: 'port used by another route, or held by another process on the gateway host' })
  @QuotaLimited(['gateway_routes'])
  @ApiServiceUnavailableResponse({ description: 'the edge cannot serve the route now: not running, or its HAProxy failed' })
  async create(@Body() dto: CreateGatewayRouteDto, @CurrentPrincipal() principal: Principal): Promise<GatewayRouteView> {
    return presentRoute(await this.routes.create(dto, principal), this.config.GATEWAY_HOST);
  }

  @Delete('routes/:port')
  @PublicRoute()
  @ApiOperation({ summary: 'Delete the route on a port; its listener closes (public, as SPEC.md says, unless PUBLIC_ENDPOINTS_REQUIRE_AUTH; with a token, only your own)' })
  @ApiOkResponse({ type: RouteDeletedView })
  @ApiBadRequestResponse({ description: 'not a port number' })
  @ApiNotFoundResponse({ description: 'no route of yours on that port' })
  async delete(@Param('port') port: string, @CurrentPrincipal() principal: Principal | undefined): Promise<RouteDeletedView> {
    const deleted = await this.routes.delete(port, principal);
    return { message: `Route on port ${deleted} deleted successfully`, port: deleted };
  }
}
