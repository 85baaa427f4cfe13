import { QueryFailedError } from 'typeorm';

/**
 * True when PostgreSQL refused a write for a unique constraint (named
 * `constraint`, when given): the database settles races that a check before
 * the write cannot, and the caller turns this into a 409. Takes TypeORM's
 * wrapped error and pg's own (from a statement sent to the pool directly).
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const pgError = pgErrorOf(err);
  return pgError?.code === '23505' && (constraint === undefined || String(pgError.constraint).includes(constraint));
}

/**
 * True when PostgreSQL refused a write for a foreign key: the row it names
 * is gone (an insert), or rows still name this one (a delete). Named
 * `constraint`, when given.
 */
export function isForeignKeyViolation(err: unknown, constraint?: string): boolean {
  const pgError = pgErrorOf(err);
  return pgError?.code === '23503' && (constraint === undefined || String(pgError.constraint).includes(constraint));
}

/** The fields of pg's error that say what was refused, whether TypeORM wrapped it or not. */
function pgErrorOf(err: unknown): { code?: string; table?: string; constraint?: string; detail?: string } | undefined {
  return (err instanceof QueryFailedError ? err.driverError : err) as ReturnType<typeof pgErrorOf>;
}
