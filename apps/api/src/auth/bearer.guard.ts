import { applyDecorators, ExecutionContext, Injectable, SetMetadata, UnauthorizedException, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ApiBearerAuth, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AppConfig, Principal } from '@stratus/core';
import { RateLimitedResponse } from '../http/rate-limit.views';
import { RateLimiter } from '../http/rate-limiter';
import { BEARER_STRATEGY } from './bearer.strategy';

const PUBLIC_ROUTE = 'stratus:public-route';

/**
 * Routes SPEC.md marks public; they need a token only when
 * PUBLIC_ENDPOINTS_REQUIRE_AUTH is set. A request that brings one anyway is
 * authenticated and then acts only on its own project's resources.
 */
export const PublicRoute = () =>
  // In the document: no credential, or the bearer token (`{}` is the empty requirement).
  applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ApiSecurity({}));

@Injectable()
export class BearerGuard extends AuthGuard(BEARER_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly limits: RateLimiter,
  ) {
    super({ property: 'principal' });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()]);
    if (isPublic && !this.config.PUBLIC_ENDPOINTS_REQUIRE_AUTH && !context.switchToHttp().getRequest().headers.authorization) return true;
    const ok = (await super.canActivate(context)) as boolean;
    // The token's subject is the credential: every token one identity holds shares its bucket.
    // Tokens without one (userId 'unknown') share a bucket per project, never one across projects.
    const principal: Principal = context.switchToHttp().getRequest().principal;
    const credential = principal.userId === 'unknown' ? `sub-less:${principal.projectId}` : `sub:${principal.userId}`;
    await this.limits.admit({ principal, credential, credentialNoun: 'token subject' }, context.switchToHttp().getResponse());
    return ok;
  }

  handleRequest<T>(err: unknown, principal: T, info: unknown): T {
    if (err) throw err as Error; // passport's strategy fails with an Error
    if (!principal) {
      const reason = info instanceof Error ? info.message : 'missing bearer token';
      throw new UnauthorizedException(`invalid token: ${reason}`);
    }
    return principal;
  }
}

export const BearerAuth = () =>
  applyDecorators(UseGuards(BearerGuard), ApiBearerAuth(), ApiUnauthorizedResponse({ description: 'missing or invalid bearer token' }), RateLimitedResponse('token subject'));
