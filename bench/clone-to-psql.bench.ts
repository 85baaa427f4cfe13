/**
 * clone-to-psql: what a new user does, timed. A `git clone` of the
 * repository (BENCH_REPO, default this checkout) into a temporary folder,
 * then the README's Quick start blocks exactly as written, in order:
 * `npm install`, `npm start` (in the background, until it prints that it is
 * up), and the block that creates a managed PostgreSQL and asks `psql` for
 * its version. `npm start` and what follows run in a network namespace of
 * their own, where nothing listens (no PostgreSQL, no Redis, no other
 * installation), as on a new host; `npm install` runs with the host's
 * network. Prints one JSON object: seconds per step and from clone to the
 * psql answer. Everything it started is stopped (by pid), the checkout and
 * its installation's accounts removed. See bench/README.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@stratus/testing';
import { freshCheckout, ReadmeRun, readmeBlocks, userEnv } from './readme';

/** The target, npm install included. */
const TARGET_S = 90;
const BLOCK_TIMEOUT_MS = 600_000;

const log = (msg: string) => process.stderr.write(`[bench:clone-to-psql] ${msg}\n`);

async function main(): Promise<void> {
  const repo = process.env.BENCH_REPO || REPO_ROOT;
  const started = Date.now();
  const dir = await freshCheckout(repo, 'clone');
  const cloneMs = Date.now() - started;
  log(`cloned ${repo} into ${dir} in ${cloneMs} ms`);
  // The README of the clone: what a new user reads.
  const blocks = readmeBlocks(readFileSync(join(dir, 'README.md'), 'utf8')).filter((b) => b.section === 'Quick start');
  const run = new ReadmeRun(dir, userEnv());
  const steps: Array<{ line: number; command: string; seconds: number }> = [{ line: 0, command: `git clone ${repo}`, seconds: cloneMs / 1000 }];
  let answer = '';
  try {
    for (const block of blocks) {
      log(`README line ${block.line}: ${block.code.split('\n')[0]}`);
      const result = await run.run(block, BLOCK_TIMEOUT_MS);
      steps.push({ line: block.line, command: block.code.trim().split('\n')[0], seconds: result.ms / 1000 });
      if (result.code !== 0) {
        throw new Error(`README line ${block.line} failed (exit ${result.code}):\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
      }
      answer = result.stdout;
    }
    if (!/PostgreSQL \d+/.test(answer)) throw new Error(`the last block printed no psql answer:\n${answer}`);
    const totalS = (Date.now() - started) / 1000;
    const npmInstall = steps.find((s) => s.command === 'npm install')?.seconds ?? null;
    process.stdout.write(
      `${JSON.stringify(
        {
          steps,
          npm_install_s: npmInstall,
          total_s: Math.round(totalS * 10) / 10,
          psql_answer: /PostgreSQL [\d.]+/.exec(answer)?.[0],
          target_s: TARGET_S,
          target_met: totalS < TARGET_S,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await run.cleanUp();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
