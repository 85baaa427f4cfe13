import { lookupUser, SystemUser } from '@stratus/core';
import { execFileSync } from 'node:child_process';

export interface RunAs extends SystemUser {
  /** Empty when processes run as the control plane's own user. */
  name: string;
}

/**
 * The unprivileged user that instances run as. Created on first use when the
 * control plane runs as root (servers and user code never run as root); a
 * non-root control plane runs them as itself.
 */
export function ensureRunUser(name: string): RunAs {
  if (process.getuid?.() !== 0) return { uid: process.getuid!(), gid: process.getgid!(), name: '' };
  const existing = lookupUser(name);
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name], {
      stdio: 'pipe',
    });
  } catch (err) {
    // Another process created it first.
    if (!lookupUser(name)) throw new Error(`cannot create system user ${name}: ${err.stderr ?? err}`);
  }
  return lookupUser(name)!;
}
