import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The first executable named `name` in the usual system folders, or null. */
export function findExecutable(name: string, dirs = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']): string | null {
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** `<bin> <args>` output (stdout and stderr), or null when it cannot run. */
export async function versionOutput(bin: string, args: string[]): Promise<string | null> {
  try {
    const { stdout, stderr } = await run(bin, args, { timeout: 10_000 });
    return `${stdout}${stderr}`;
  } catch (err) {
    return err.stdout || err.stderr ? `${err.stdout ?? ''}${err.stderr ?? ''}` : null;
  }
}
