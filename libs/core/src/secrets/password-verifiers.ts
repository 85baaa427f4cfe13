import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import type { DatabaseEngine } from '../databases/database-engines';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** PostgreSQL's default SCRAM iteration count. */
const SCRAM_ITERATIONS = 4096;

/**
 * A password for a new database server: 32 characters of letters and
 * digits (about 190 bits), safe in URLs, shells and config files.
 */
export function generateDatabasePassword(length = 32): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejection sampling keeps every character equally likely.
      if (byte < 248 && out.length < length) out.push(alphabet[byte % 62]);
    }
  }
  return out.join('');
}

/**
 * The verifier PostgreSQL stores for a SCRAM-SHA-256 password
 * (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`), computed
 * as PostgreSQL does; `CREATE ROLE ... PASSWORD '<verifier>'` keeps it as
 * given. Passwords are printable ASCII, for which SASLprep changes nothing.
 */
export async function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16)): Promise<string> {
  const salted = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Redis ACL (`#<hex>`) and ClickHouse (`password_sha256_hex`) both take the SHA-256 of the password. */
export function sha256Hex(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('hex');
}

/**
 * The `mysql_native_password` verifier (`*` and the upper-case hex of
 * SHA1(SHA1(password))), which MariaDB and MySQL both take as given
 * (`IDENTIFIED VIA mysql_native_password USING '*…'`, `IDENTIFIED WITH
 * mysql_native_password AS '*…'`). Unsalted: docs/decisions.md says why it
 * is still the one stored.
 */
export function mysqlNativeVerifier(password: string): string {
  const sha1 = (data: Buffer) => createHash('sha1').update(data).digest();
  return `*${sha1(sha1(Buffer.from(password, 'utf8')))
    .toString('hex')
    .toUpperCase()}`;
}

/** The one place that says which verifier each engine stores. */
export function engineVerifier(engine: DatabaseEngine, password: string): Promise<string> {
  switch (engine) {
    case 'postgres':
      return scramSha256Verifier(password);
    case 'redis':
    case 'clickhouse':
      return Promise.resolve(sha256Hex(password));
    case 'mariadb':
    case 'mysql':
      return Promise.resolve(mysqlNativeVerifier(password));
  }
}
