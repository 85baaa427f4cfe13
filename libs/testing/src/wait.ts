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
 * there) until `done` says so, or `failed` names a terminal state the
 * caller did not wait for (which no further wait can leave). On either
 * failure the error ends with the last state seen: which step a resource
 * stuck in, or why it failed, is what a failed run must tell.
 */
export async function waitForState<T>(
  what: string,
  look: () => Promise<T | undefined>,
  done: (seen: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; failed?: (seen: T) => boolean } = {},
): Promise<T> {
  const { failed = () => false, ...timing } = options;
  let last: T | undefined;
  let seen: T;
  try {
    seen = await waitFor(
      what,
      async () => {
        last = await look();
        return last !== undefined && (done(last) || failed(last)) ? last : undefined;
      },
      timing,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: err });
  }
  if (!done(seen)) throw new Error(`gave up waiting for ${what}: it failed; last seen: ${JSON.stringify(seen)}`);
  return seen;
}
