import { REPO_ROOT } from '@stratus/testing';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandsOf, freshCheckout, ReadmeRun, readmeBlocks, userEnv } from '../bench/readme';

const all = readmeBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const summary = all.filter((b) => b.summary);
const blocks = all.filter((b) => !b.summary);
/** Docker with Compose and an engine that answers: where the Containers blocks can run. */
const docker = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0 && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
/** An error envelope in what a command printed: a curl that "succeeded" with a 4xx or 5xx. */
const ERROR_BODY = /"statusCode"\s*:\s*[45]\d\d|"error"\s*:\s*\{/;
const BLOCK_TIMEOUT_MS = 300_000;

/**
 * Every shell block of the README, exactly as written, in order, on a fresh
 * copy of this checkout: `npm install` for real, then `npm start` on a host
 * where nothing listens (its own network namespace), then each block after
 * it in a shell of its own, as a reader pastes them. A block passes when
 * every command in it succeeds and nothing it printed is an error body.
 */
describe('README', () => {
  jest.setTimeout(BLOCK_TIMEOUT_MS);
  let run: ReadmeRun;
  /** Once one block failed, the ones after it meet a state the README does not describe. */
  let failed: string | null = null;

  beforeAll(async () => {
    run = new ReadmeRun(await freshCheckout(REPO_ROOT, 'copy'), userEnv());
  });

  afterAll(async () => {
    await run?.cleanUp();
  });

  it('has the blocks this suite knows how to run', () => {
    expect(blocks.filter((b) => b.until).map((b) => b.code)).toEqual(['npm start\n']);
    expect(blocks.length).toBeGreaterThanOrEqual(7);
  });

  it('opens with its two commands, each run below or the suite this test is part of', () => {
    expect(all[0].summary).toBe(true);
    expect(summary.flatMap(commandsOf)).toEqual(['npm start', 'npm test']);
    const run = new Set(blocks.flatMap(commandsOf));
    for (const command of summary.flatMap(commandsOf)) expect({ command, covered: run.has(command) || command === 'npm test' }).toEqual({ command, covered: true });
  });

  for (const block of blocks) {
    const title = `line ${block.line} (${block.section}): ${block.code.split('\n')[0]}`;
    const maybe = block.needsDocker && !docker ? it.skip : it;
    maybe(title, async () => {
      if (failed) throw new Error(`not run: ${failed} failed before it`);
      const result = await run.run(block, BLOCK_TIMEOUT_MS);
      // What each block took and printed last, in the run's output: what a reader would have seen.
      process.stdout.write(`README line ${block.line}: ${result.ms} ms, exit ${result.code}\n${result.stdout.slice(-600)}\n`);
      const shown = `exit ${result.code}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`;
      try {
        expect({ code: result.code, errorBody: ERROR_BODY.test(result.stdout) }).toEqual({ code: 0, errorBody: false });
        if (block.until) expect(result.stdout).toContain(block.until);
      } catch (err) {
        failed = title;
        throw new Error(`${(err as Error).message}\n${shown}`, { cause: err });
      }
    });
  }
});
