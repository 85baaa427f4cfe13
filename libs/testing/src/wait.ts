import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` until it returns a value that is not undefined/false, or fails with `what` at the deadline. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, { timeoutMs = 30_000, intervalMs = 100 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Polls `look` (a resource as the API shows it, undefined while it is not
 * there) until `done` says so. On timeout the error ends with the last
 * state seen: which step a resource stuck in is what a failed run must tell.
 */
export async function waitForState<T>(
  what: string,
  look: () => Promise<T | undefined>,
  done: (seen: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  let last: T | undefined;
  try {
    return await waitFor(
      what,
      async () => {
        last = await look();
        return last !== undefined && done(last) ? last : undefined;
      },
      options,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: err });
  }
}
