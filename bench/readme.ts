import { FreshHost, unmountUnder } from '@stratus/testing';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@stratus/testing';

const exec = promisify(execFile);

/** One ```sh block of the README, with what the HTML comment on the line before it says. */
export interface ReadmeBlock {
  /** The `##` heading it is under. */
  section: string;
  /** 1-based line of its opening fence. */
  line: number;
  code: string;
  /** `<!-- readme-test: background until "TEXT" -->`: a server; it runs on while the next blocks do, once it printed TEXT. */
  until?: string;
  /** `<!-- readme-test: needs docker -->`: runs only where a Docker engine with Compose answers. */
  needsDocker?: boolean;
  /**
   * `<!-- readme-test: summary -->`: the README's opening list of its two
   * commands. Not run as a block: each of its commands is run by a later
   * block, or is `npm test`, the suite the README test is part of.
   */
  summary?: boolean;
}

/** The commands of a block, one per line, without comments and blank lines. */
export function commandsOf(block: ReadmeBlock): string[] {
  return block.code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** Every ```sh block of `markdown`, in order. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (/^##\s/.test(lines[i])) section = lines[i].replace(/^#+\s*/, '');
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README line ${i + 1}: a code block that never closes`);
    const note = i > 0 ? /^<!-- readme-test: (.*) -->$/.exec(lines[i - 1])?.[1] : undefined;
    const block: ReadmeBlock = { section, line: i + 1, code: lines.slice(i + 1, end).join('\n') + '\n' };
    if (note) {
      const until = /^background until "(.+)"$/.exec(note);
      if (until) block.until = until[1];
      else if (note === 'needs docker') block.needsDocker = true;
      else if (note === 'summary') block.summary = true;
      else throw new Error(`README line ${i}: unknown readme-test note: ${note}`);
    }
    blocks.push(block);
    i = end;
  }
  return blocks;
}

/** A checkout of the repository in a new temporary folder: `git clone` of it, or a copy of its working tree as it is (uncommitted changes too). */
export async function freshCheckout(repo: string, how: 'clone' | 'copy'): Promise<string> {
  const parent = mkdtempSync(join(tmpdir(), 'stratus-checkout-'));
  // As under /opt or /srv: the servers run as a user of their own, which must pass through to the binaries and data.
  chmodSync(parent, 0o755);
  const dir = join(parent, 'stratus');
  if (how === 'clone') {
    await exec('git', ['clone', '-q', repo, dir]);
  } else {
    // What git would check out, as it is now: tracked files and new ones not ignored (no node_modules, dist or .data).
    const copy = spawnSync(
      'sh',
      ['-c', `mkdir -p "${dir}" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c '[ -e "{}" ] && echo "{}"' | tar -cf - -T - | tar -xf - -C "${dir}"`],
      {
        cwd: repo,
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      },
    );
    if (copy.status !== 0) throw new Error(`copying the working tree failed: ${copy.stderr}`);
  }
  return dir;
}

export interface BlockResult {
  block: ReadmeBlock;
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
  skipped?: string;
}

/**
 * Runs README blocks in `dir` in order, each in a shell of its own (bash
 * -e: a command that fails fails the block), as a reader would paste them
 * into a terminal. The first background block (`npm start`) starts a
 * FreshHost, a network namespace of its own in which nothing else listens,
 * as on a new host; that block and every one after it run there. Blocks
 * before it (`npm install`) run on the host, with its network.
 */
export class ReadmeRun {
  host: FreshHost | null = null;
  readonly results: BlockResult[] = [];

  constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  async run(block: ReadmeBlock, timeoutMs: number): Promise<BlockResult> {
    const started = Date.now();
    let result: BlockResult;
    if (block.until) {
      if (this.host) throw new Error(`README line ${block.line}: a second background block`);
      this.host = await FreshHost.start(`bash -e -c ${shellQuote(block.code)}`, { cwd: this.dir, env: this.env });
      const host = this.host;
      await waitFor(`README line ${block.line} to print ${block.until}`, () => host.output.includes(block.until!) || host.child.exitCode !== null, {
        timeoutMs,
        intervalMs: 100,
      });
      const code = host.child.exitCode;
      result = { block, ms: Date.now() - started, code: code ?? 0, stdout: host.output, stderr: '' };
    } else if (this.host) {
      const r = await this.host.sh(`cd ${shellQuote(this.dir)} && exec bash -e -c ${shellQuote(block.code)}`, { env: this.env, timeoutMs });
      result = { block, ms: Date.now() - started, ...r };
    } else {
      const r = spawnSync('bash', ['-e', '-c', block.code], { cwd: this.dir, env: this.env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
      result = { block, ms: Date.now() - started, code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') };
    }
    this.results.push(result);
    return result;
  }

  /** Stops what the blocks started (every process in the namespace, by pid), and removes the installation's accounts and the checkout. */
  async cleanUp(): Promise<void> {
    if (this.host) await this.host.destroy(join(this.dir, '.data'));
    // Volumes attached by the README's blocks are loop-mounted in the checkout.
    unmountUnder(this.dir);
    rmSync(join(this.dir, '..'), { recursive: true, force: true });
  }
}

/** The environment of a new user's shell: nothing of Stratus set. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'USER', 'TERM', 'npm_config_cache']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
