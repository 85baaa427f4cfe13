import { createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { join } from 'node:path';
import * as jwt from 'jsonwebtoken';
import { readOrCreateSecret, secretsDir } from './secret-file';

/**
 * The embedded identity provider: an RS256 key pair kept in the data
 * directory. It signs development tokens (CLI, bootstrap) and publishes its
 * JWKS; the API verifies those tokens through the same JWKS code path it uses
 * for a real identity provider.
 */
export class EmbeddedTokenSigner {
  readonly kid: string;

  private constructor(
    private readonly privatePem: string,
    private readonly publicKey: KeyObject,
  ) {
    const jwk = publicKey.export({ format: 'jwk' });
    this.kid = `stratus-${String(jwk.n).slice(0, 16)}`;
  }

  static fromDataDir(dataDir: string): EmbeddedTokenSigner {
    const pem = readOrCreateSecret(join(secretsDir(dataDir), 'jwt-signing-key.pem'), () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    return new EmbeddedTokenSigner(pem, createPublicKey(pem));
  }

  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [{ ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: 'RS256' }] };
  }

  sign(claims: Record<string, unknown>, opts: { issuer: string; audience: string; expiresIn: string | number }): string {
    return jwt.sign(claims, this.privatePem, {
      algorithm: 'RS256',
      keyid: this.kid,
      issuer: opts.issuer,
      audience: opts.audience,
      expiresIn: opts.expiresIn as jwt.SignOptions['expiresIn'],
    });
  }
}
