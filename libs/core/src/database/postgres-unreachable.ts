/** Connection-level SQLSTATEs: the server is gone, going, starting, or full. */
const POSTGRES_UNAVAILABLE = /^(08|57P0[1-3]|53300)/;
const POSTGRES_CLIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|is not queryable/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether an error says a PostgreSQL server is out of reach rather than
 * that a statement failed. It reads the error alone: a network error is
 * taken for ours when it names our database's port (a refused connect) or
 * comes wrapped by TypeORM, which talks to ours alone (a connection reset
 * under a statement names no port). A server's own SQLSTATE or pg's
 * messages look the same from any PostgreSQL, so where another one may be
 * talked to (a managed database, from the worker) a caller confirms with a
 * query of its own.
 */
export function looksLikePostgresUnreachable(exception: unknown, databasePort: number): boolean {
  if (typeof exception !== 'object' || exception === null) return false;
  // TypeORM wraps what pg throws during a query; a failed connect comes unwrapped.
  const driverError = (exception as { driverError?: unknown }).driverError;
  for (const [err, wrapped] of [
    [exception, false],
    [driverError, true],
  ] as const) {
    if (typeof err !== 'object' || err === null) continue;
    const { code, message, port } = err as { code?: unknown; message?: unknown; port?: unknown };
    if (typeof code === 'string' && POSTGRES_UNAVAILABLE.test(code) && 'severity' in err) return true;
    if (typeof message === 'string' && POSTGRES_CLIENT_MESSAGES.test(message)) return true;
    if (typeof code === 'string' && NETWORK_CODES.has(code) && (wrapped || port === databasePort)) return true;
  }
  return false;
}

/** The port of a `postgres://` URL, PostgreSQL's own when it names none. */
export function postgresPort(databaseUrl: string): number {
  return Number(new URL(databaseUrl).port || 5432);
}
