import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { AppConfig, EmbeddedTokenSigner, Principal } from '@stratus/core';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy } from 'passport-jwt';

export const BEARER_STRATEGY = 'bearer-jwt';

/**
 * `/api/cloud`: an RS/PS/ES-signed JWT whose key comes from a JWKS, with
 * algorithms pinned and issuer, audience and expiry checked. With no identity
 * provider configured the JWKS is the embedded key pair's, served at
 * /.well-known/jwks.json, and read through this same path.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(private readonly config: AppConfig) {
    const embedded = config.AUTH_JWKS_URL ? null : EmbeddedTokenSigner.fromDataDir(config.DATA_DIR);
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: config.AUTH_ALGORITHMS as never,
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      ignoreExpiration: false,
      secretOrKeyProvider: passportJwtSecret({
        jwksUri: config.AUTH_JWKS_URL ?? `${config.publicUrl}/.well-known/jwks.json`,
        cache: true,
        cacheMaxAge: 10 * 60_000,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
        ...(embedded ? { getKeysInterceptor: () => embedded.jwks().keys as never } : {}),
      }),
    });
  }

  validate(payload: Record<string, unknown>): Principal {
    // The verifier checks `exp` only when a token has one; a token without it would be good forever.
    if (typeof payload.exp !== 'number') throw new UnauthorizedException('invalid token: it has no expiry (exp)');
    const projectId = payload[this.config.AUTH_PROJECT_CLAIM];
    if (typeof projectId !== 'string' || projectId === '') {
      throw new ForbiddenException(`token has no ${this.config.AUTH_PROJECT_CLAIM} claim: it grants no project`);
    }
    return { projectId, userId: typeof payload.sub === 'string' ? payload.sub : 'unknown' };
  }
}
