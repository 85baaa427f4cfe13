import { execFileSync } from 'node:child_process';

/** A system account's ids. */
export interface SystemUser {
  uid: number;
  gid: number;
  name: string;
}

/** The account's ids, or null when the system has no such account. */
export function lookupUser(name: string): SystemUser | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return { uid, gid, name };
  } catch {
    return null;
  }
}

/** A system group's id, or null when the system has no such group. */
export function lookupGroup(name: string): number | null {
  try {
    const line = execFileSync('getent', ['group', name], { encoding: 'utf8', stdio: 'pipe' }).trim();
    const gid = Number(line.split(':')[2]);
    return Number.isInteger(gid) ? gid : null;
  } catch {
    return null;
  }
}

/** Every account the system knows, by name (one read, for lookups of many users at once). */
export function systemUsers(): Map<string, number> {
  const users = new Map<string, number>();
  try {
    for (const line of execFileSync('getent', ['passwd'], { encoding: 'utf8', stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }).split('\n')) {
      const [name, , uid] = line.split(':');
      if (name && /^\d+$/.test(uid ?? '')) users.set(name, Number(uid));
    }
  } catch {
    // No getent: no accounts to find.
  }
  return users;
}
