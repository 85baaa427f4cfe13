/*
 * What a resource's life refuses, said in the resource's terms. libs/core is
 * shared by the api and the worker, so it knows nothing of HTTP: the api's
 * exception filter is the one place that turns each kind into a status and
 * the error envelope, and the worker reads the same errors as reasons.
 * Every message is written for the caller, as it is answered.
 */

/** The kinds the api maps to statuses (all-exceptions.filter.ts). */
export type DomainErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable' | 'quota_exceeded';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One field's fault: the field's path and what is wrong with it. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The request is wrong (400). The message names the field (`field: message`),
 * as SPEC.md asks of a 400; several faults are joined with `; `.
 */
export class Invalid extends DomainError {
  readonly kind = 'invalid';
  readonly problems: readonly FieldProblem[];

  constructor(field: string, message: string);
  constructor(problems: readonly FieldProblem[]);
  constructor(fieldOrProblems: string | readonly FieldProblem[], message?: string) {
    const problems = typeof fieldOrProblems === 'string' ? [{ field: fieldOrProblems, message: message ?? 'is invalid' }] : fieldOrProblems;
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    this.problems = problems;
  }
}

/** The resource is another project's, and saying so tells the caller nothing new (403). */
export class Forbidden extends DomainError {
  readonly kind = 'forbidden';
}

/** No such resource, or one the caller may not learn exists (404). */
export class NotFound extends DomainError {
  readonly kind = 'not_found';
}

/** The resource's state (or a concurrent change, or a taken name) refuses the move (409). */
export class Conflict extends DomainError {
  readonly kind = 'conflict';
}

/** Something the move needs cannot serve it now; trying later may work (503). */
export class Unavailable extends DomainError {
  readonly kind = 'unavailable';
}

/**
 * The create would take the project past one of its quotas (403, code
 * `quota_exceeded`, as OpenStack answers an exceeded quota). The message
 * names the quota, its limit and the usage now.
 */
export class QuotaExceeded extends DomainError {
  readonly kind = 'quota_exceeded';
}
