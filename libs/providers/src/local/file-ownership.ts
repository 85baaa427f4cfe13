import { chownSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RunAs } from './run-user';

/** Gives a whole folder to the run user (nothing to do when processes run as the control plane's user). */
export function chownTree(path: string, runAs: RunAs): void {
  if (!runAs.name) return;
  chownSync(path, runAs.uid, runAs.gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), runAs);
}
