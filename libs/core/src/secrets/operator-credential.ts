import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken, readOrCreateSecret, secretsDir, writeSecret } from './secret-file';

/** The operator password of the queue dashboard: generated once, kept only as a scrypt hash. */
export class OperatorCredential {
  private constructor(private readonly stored: string | null) {}

  static fromDataDir(dataDir: string): OperatorCredential {
    const path = OperatorCredential.path(dataDir);
    return new OperatorCredential(existsSync(path) ? readFileSync(path, 'utf8').trim() : null);
  }

  /** Sets a new password, or only a first one with `onlyIfUnset`; returns it (shown once) or null. */
  static create(dataDir: string, { onlyIfUnset = true } = {}): string | null {
    const path = OperatorCredential.path(dataDir);
    if (existsSync(path) && onlyIfUnset) return null;
    const password = randomToken(18);
    const salt = randomBytes(16);
    const hash = `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
    if (onlyIfUnset) {
      // Several processes may bootstrap at once: only the one whose hash was stored returns its password.
      readOrCreateSecret(path, () => hash);
      return OperatorCredential.fromDataDir(dataDir).verify(password) ? password : null;
    }
    writeSecret(path, hash);
    return password;
  }

  verify(password: string): boolean {
    if (!this.stored) return false;
    const [scheme, salt, hash] = this.stored.split('$');
    if (scheme !== 'scrypt') return false;
    const expected = Buffer.from(hash, 'base64url');
    const actual = scryptSync(password, Buffer.from(salt, 'base64url'), expected.length);
    return timingSafeEqual(actual, expected);
  }

  /** An `Authorization: Basic` header naming `operator` with the right password. */
  verifyBasic(authorization: string | undefined): boolean {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization?.trim() ?? '');
    if (!match) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 && decoded.slice(0, colon) === 'operator' && this.verify(decoded.slice(colon + 1));
  }

  private static path(dataDir: string): string {
    return join(secretsDir(dataDir), 'operator-password.scrypt');
  }
}
