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
