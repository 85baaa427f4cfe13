import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { randomToken, readOrCreateSecret, secretsDir } from './secret-file';

/** Keys look like `stk_<keyid>_<secret>`; the key id finds the row, the secret proves possession. */
const PREFIX = 'stk';
const KEY_PATTERN = /^stk_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export interface IssuedApiKey {
  /** The whole key, shown once. */
  key: string;
  keyId: string;
  secretHash: string;
}

export class ApiKeyHasher {
  constructor(private readonly pepper: Buffer) {}

  /** The HMAC key comes from API_KEY_PEPPER-equivalent file in the data directory. */
  static fromDataDir(dataDir: string): ApiKeyHasher {
    const pepper = readOrCreateSecret(join(secretsDir(dataDir), 'api-key-pepper'), () => randomToken(32));
    return new ApiKeyHasher(Buffer.from(pepper, 'utf8'));
  }

  issue(): IssuedApiKey {
    const keyId = randomBytes(10).toString('hex').slice(0, 16);
    const secret = randomToken(32);
    return { key: `${PREFIX}_${keyId}_${secret}`, keyId, secretHash: this.hash(secret) };
  }

  hash(secret: string): string {
    return createHmac('sha256', this.pepper).update(secret).digest('hex');
  }

  /** Splits a presented key; null when it cannot be one of ours. */
  static parse(presented: string): { keyId: string; secret: string } | null {
    const m = KEY_PATTERN.exec(presented);
    return m ? { keyId: m[1], secret: m[2] } : null;
  }

  verify(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(secret), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
