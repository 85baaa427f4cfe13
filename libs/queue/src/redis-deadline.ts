/**
 * How long a Redis call may take where a caller or a PostgreSQL transaction
 * waits on it. The connection itself waits for Redis forever (workers need
 * that: a blocked command resumes on reconnect), so bounded waits are ours.
 */
export const REDIS_DEADLINE_MS = 1_500;

/** Redis did not answer in time or refused: the caller answers 503 or leaves the work to the relay. */
export class RedisUnavailableError extends Error {
  constructor(what: string, cause?: Error | string) {
    super(`Redis is unavailable (${what}${cause ? `: ${cause instanceof Error ? cause.message : cause}` : ''})`);
    this.name = 'RedisUnavailableError';
  }
}

/**
 * `call`'s result, or a RedisUnavailableError once `ms` have passed. The
 * command itself is not cancelled: it may still run when Redis comes back,
 * which is harmless for what we send (deterministic job ids, upserts).
 */
export async function withRedisDeadline<T>(what: string, call: Promise<T>, ms = REDIS_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call.catch((err) => Promise.reject(new RedisUnavailableError(what, err))), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
