import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Several installations may share one host (an `npm start` beside an
 * `npm test`, two slots of tests). Everything one of them leaves on the host
 * outside its DATA_DIR carries this identity: process markers, system users
 * and groups, cgroups, packet-filter tables. It is made once, at random, and
 * kept in the data folder, so it follows the installation and never its path.
 */
export function installationId(dataDir: string): string {
  const file = join(dataDir, 'installation-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{8}$/.test(id)) return id;
  } catch {
    // first use
  }
  mkdirSync(dataDir, { recursive: true });
  const id = randomBytes(4).toString('hex');
  try {
    // wx: a second process making it at the same moment keeps the first one's.
    writeFileSync(file, `${id}\n`, { flag: 'wx', mode: 0o644 });
    return id;
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
}

/** The installation's identity when its data folder has one already (tools that clean up must not make one). */
export function existingInstallationId(dataDir: string): string | null {
  try {
    const id = readFileSync(join(dataDir, 'installation-id'), 'utf8').trim();
    return /^[0-9a-f]{8}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** The host names an installation gives its accounts (at most 32 characters, as useradd wants). */
export const hostNames = {
  /** The user one instance runs as: made at create, removed at delete. */
  instanceUser: (installation: string, instanceId: string) => `si${installation}-${instanceId.replace(/-/g, '').slice(0, 16)}`,
  /** The primary group of every instance user of the installation: what the packet filter knows instances by. */
  instancesGroup: (installation: string) => `stratus-${installation}-i`,
  /** The user every managed database server runs as; no instance is this user or in its group. */
  databaseUser: (installation: string) => `stratus-${installation}-db`,
  /** The packet filter's table of the installation (nft `inet` family). */
  filterTable: (installation: string) => `stratus_${installation}`,
};
