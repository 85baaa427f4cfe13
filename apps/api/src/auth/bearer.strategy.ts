import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { AppConfig, EmbeddedTokenSigner, Principal } from '@stratus/core';
import { decode } from 'jsonwebtoken';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, SecretOrKeyProvider, Strategy } from 'passport-jwt';

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
      secretOrKeyProvider: failWithoutKey(
        passportJwtSecret({
          jwksUri: config.AUTH_JWKS_URL ?? `${config.publicUrl}/.well-known/jwks.json`,
          cache: true,
          cacheMaxAge: 10 * 60_000,
          rateLimit: true,
          jwksRequestsPerMinute: 10,
          ...(embedded ? { getKeysInterceptor: () => embedded.jwks().keys as never } : {}),
        }),
        config.AUTH_ALGORITHMS,
      ),
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

/**
 * jwks-rsa answers a token whose kid no key of the JWKS has with neither an
 * error nor a key, and passport-jwt then verifies it with no key: for an
 * unsigned token of a pinned algorithm, jsonwebtoken throws inside
 * jwks-rsa's promise, and the rejection nobody handles ended the process.
 * So a token of a pinned algorithm that gets no key fails here; any other
 * goes on to the verifier, which names what is wrong with it.
 */
function failWithoutKey(provider: SecretOrKeyProvider, algorithms: string[]): SecretOrKeyProvider {
  return (request, rawJwt, done) =>
    provider(request, rawJwt, (err, key) => {
      if (!err && !key && algorithms.includes(headerAlg(rawJwt) ?? '')) return done(new Error('no key of the JWKS has its kid'));
      done(err, key);
    });
}

/** The `alg` of a token's header, read as the verifier reads it; none when it does not read. */
function headerAlg(rawJwt: unknown): string | undefined {
  try {
    return decode(String(rawJwt), { complete: true })?.header.alg;
  } catch {
    return undefined; // jws throws on a payload that is not JSON under a `typ: JWT` header
  }
}
