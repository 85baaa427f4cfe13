import { QueryFailedError } from 'typeorm';

/**
 * True when PostgreSQL refused a write for a unique constraint (named
 * `constraint`, when given): the database settles races that a check before
 * the write cannot, and the caller turns this into a 409.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === '23505' && (constraint === undefined || String(driverError.constraint).includes(constraint));
}
