import { applyDecorators, CanActivate, ExecutionContext, Injectable, UnauthorizedException, UseGuards } from '@nestjs/common';
import { ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ApiKeyHasher, ProjectsService } from '@stratus/core';
import { RateLimitedResponse } from '../http/rate-limit.views';
import { RateLimiter } from '../http/rate-limiter';

/** `/v1`: the `x-api-key` header names a live key; its project scopes everything the request touches. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly projects: ProjectsService,
    private readonly limits: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest();
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.length === 0) {
      throw new UnauthorizedException('missing x-api-key header');
    }
    const principal = await this.projects.verifyApiKey(presented);
    if (!principal) throw new UnauthorizedException('invalid API key');
    request.principal = principal;
    // A verified key parses: counted by its id, never by its secret.
    const credential = `key:${ApiKeyHasher.parse(presented)!.keyId}`;
    await this.limits.admit({ principal, credential, credentialNoun: 'API key' }, context.switchToHttp().getResponse());
    return true;
  }
}

export const ApiKeyAuth = () =>
  applyDecorators(UseGuards(ApiKeyGuard), ApiSecurity('api-key'), ApiUnauthorizedResponse({ description: 'missing or invalid x-api-key' }), RateLimitedResponse('API key'));
