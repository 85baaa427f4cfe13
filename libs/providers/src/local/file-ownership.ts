import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunAs } from './host-accounts';

/**
 * Gives a whole folder to a user (nothing to do when processes run as the
 * control plane's user). Links are changed themselves, never followed.
 */
export function chownTree(path: string, runAs: RunAs): void {
  if (!runAs.name) return;
  lchownSync(path, runAs.uid, runAs.gid);
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), runAs);
}
