import { connect } from 'node:net';

/**
 * One command on HAProxy's runtime API (the stats socket, non-interactive
 * mode: HAProxy answers and closes). Resolves with the answer's text.
 */
export function runtimeCommand(socket: string, command: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let answer = '';
    conn.setEncoding('utf8');
    conn.setTimeout(timeoutMs, () => conn.destroy(new Error(`HAProxy runtime API: no answer to "${command.split('\n')[0]}" in ${timeoutMs} ms`)));
    conn.on('connect', () => conn.end(command.endsWith('\n') ? command : `${command}\n`));
    conn.on('data', (d: string) => (answer += d));
    conn.on('error', reject);
    conn.on('close', () => resolve(answer));
  });
}

/**
 * Many commands whose answers are short, `;`-separated on as few lines as
 * fit HAProxy's buffer (one connection per line). Resolves with the
 * answers' non-blank lines, all together.
 */
export async function runtimeBatch(socket: string, commands: string[]): Promise<string[]> {
  const answers: string[] = [];
  for (const chunk of chunksOf(commands, PAYLOAD_MAX)) {
    const answer = await runtimeCommand(socket, chunk.join('; '));
    answers.push(...answer.split('\n').filter((l) => l.trim()));
  }
  return answers;
}

/**
 * Replaces a map's whole content atomically (prepare, add, commit): a
 * request sees the old set or the new one, never a mix.
 */
export async function replaceMap(socket: string, map: string, lines: string[]): Promise<void> {
  const prepared = await runtimeCommand(socket, `prepare map ${map}`);
  const version = /New version created: (\d+)/.exec(prepared)?.[1];
  if (!version) throw new Error(`HAProxy runtime API: prepare map answered ${JSON.stringify(prepared.trim())}`);
  // A command and its payload must fit HAProxy's buffer (tune.bufsize, 16 KiB): several adds to one version.
  for (const chunk of chunksOf(lines, PAYLOAD_MAX)) {
    const added = await runtimeCommand(socket, `add map @${version} ${map} <<\n${chunk.join('\n')}\n\n`);
    if (added.trim()) throw new Error(`HAProxy runtime API: add map answered ${JSON.stringify(added.trim())}`);
  }
  const committed = await runtimeCommand(socket, `commit map @${version} ${map}`);
  if (committed.trim()) throw new Error(`HAProxy runtime API: commit map answered ${JSON.stringify(committed.trim())}`);
}

const PAYLOAD_MAX = 8 * 1024;

/** Consecutive lines in groups of at most `max` bytes (a longer line goes alone). */
function chunksOf(lines: string[], max: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (current.length > 0 && size + line.length + 1 > max) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
