import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the embedded defaults keep their generated secrets (mode 0700 / 0600). */
export function secretsDir(dataDir: string): string {
  return join(dataDir, 'secrets');
}

/**
 * Reads a secret file, creating it with `make()` the first time. Creation uses
 * O_EXCL so concurrent first starts of several processes agree on one value.
 */
export function readOrCreateSecret(path: string, make: () => string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  makeSecretsDir(path);
  try {
    writeFileSync(path, make(), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  return readFileSync(path, 'utf8');
}

/** Replaces a secret file (mode 0600). */
export function writeSecret(path: string, content: string): void {
  makeSecretsDir(path);
  writeFileSync(path, content, { mode: 0o600 });
}

/** The data folder stays reachable (instances live below it); only the secrets folder is private. */
function makeSecretsDir(path: string): void {
  mkdirSync(dirname(dirname(path)), { recursive: true });
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
