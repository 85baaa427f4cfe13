import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Principal } from '@stratus/core';
import { BearerAuth } from './bearer.guard';
import { CurrentPrincipal } from './principal.decorator';
import { JwksService } from './jwks.service';

class JwksView {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'JSON Web Keys (RFC 7517): kty, n, e, kid, use, alg',
  })
  keys: Array<Record<string, unknown>>;
}

class WhoamiView {
  @ApiProperty()
  project_id: string;

  @ApiProperty()
  user_id: string;
}

@ApiTags('auth')
@Controller()
export class AuthController {
  constructor(private readonly jwks: JwksService) {}

  @Get('.well-known/jwks.json')
  @ApiOperation({ summary: 'Public keys of the embedded identity provider (empty when an external one is configured)' })
  @ApiOkResponse({ type: JwksView })
  keys(): JwksView {
    return this.jwks.keys();
  }

  @Get('api/cloud/auth/whoami')
  @BearerAuth()
  @ApiOperation({ summary: 'The project and user a bearer token grants' })
  @ApiOkResponse({ type: WhoamiView })
  whoami(@CurrentPrincipal() principal: Principal): WhoamiView {
    return { project_id: principal.projectId, user_id: principal.userId };
  }
}
