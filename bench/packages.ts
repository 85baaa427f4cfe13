import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Installs the Debian packages a bench compares against (HAProxy, nginx)
 * when their binary is missing: bench-only dependencies, so a bench runs on
 * a fresh machine without `npm start` or `npm test` having run first.
 */
export function ensurePackages(binaries: Record<string, string>, log: (m: string) => void): void {
  const missing = Object.entries(binaries)
    .filter(([, bin]) => !existsSync(bin))
    .map(([pkg]) => pkg);
  if (missing.length === 0) return;
  log(`installing ${missing.join(', ')} (bench only)`);
  const install = `DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  try {
    execSync(install, { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch {
    execSync('apt-get update -q', { stdio: ['ignore', 'ignore', 'inherit'] });
    execSync(install, { stdio: ['ignore', 'ignore', 'inherit'] });
  }
}
