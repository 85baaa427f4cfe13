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
