import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { REPO_ROOT } from './test-env';

/** Debian's Chromium: playwright-core brings no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Without the background-networking, sync and component-update switches,
 * Chromium reaches for Google's services at start, and on a closed network
 * those attempts leave the page's own connections refused; QUIC is off for
 * the same reason.
 */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Chromium, installed with the project's own installer
 * (`scripts/ensure-system-packages.sh --browser`, which `npm test` runs
 * too) when a browser test runs on a machine without it. Several minutes on
 * a fresh machine: give the calling hook a timeout that allows for it.
 */
export async function ensureChromium(): Promise<string> {
  if (!existsSync(CHROMIUM)) {
    await promisify(execFile)('sh', [join(REPO_ROOT, 'scripts', 'ensure-system-packages.sh'), '--browser'], { maxBuffer: 16 << 20 });
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and could not be installed: run scripts/ensure-system-packages.sh --browser as root`);
  return CHROMIUM;
}

/**
 * A headless Chromium. Playwright starts it on a fresh user-data-dir of
 * its own and removes it when the browser closes; each context the caller
 * opens has its own cookies, cache and cached credentials.
 */
export async function launchChromium(): Promise<Browser> {
  // Loaded here, not at the top: only browser suites pay for it.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: await ensureChromium(), args: CHROMIUM_FLAGS });
}

/** Where a suite leaves what a person should look at after a run (screenshots): `test-output/<suite>/`, git-ignored. */
export function testOutputDir(suite: string): string {
  const dir = join(REPO_ROOT, 'test-output', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}
