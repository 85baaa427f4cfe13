import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { EmbeddedTokenSigner, Principal } from '@stratus/core';
import { BearerAuth } from './bearer.guard';
import { CurrentPrincipal } from './principal.decorator';
import { JwksService } from './jwks.service';

@ApiTags('auth')
@Controller()
export class AuthController {
  constructor(private readonly jwks: JwksService) {}

  @Get('.well-known/jwks.json')
  @ApiOperation({ summary: 'Public keys of the embedded identity provider (empty when an external one is configured)' })
  keys(): ReturnType<EmbeddedTokenSigner['jwks']> {
    return this.jwks.keys();
  }

  @Get('api/cloud/auth/whoami')
  @BearerAuth()
  @ApiOperation({ summary: 'The project and user a bearer token grants' })
  whoami(@CurrentPrincipal() principal: Principal): { project_id: string; user_id: string } {
    return { project_id: principal.projectId, user_id: principal.userId };
  }
}
