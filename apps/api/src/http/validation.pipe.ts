import { ArgumentMetadata, BadRequestException, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';

/** Flattens nested validation errors to `path: message` lines, so a 400 names the field. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    // class-validator starts each message with the property name; the path replaces it.
    const messages = Object.values(e.constraints ?? {}).map((m) => (m.startsWith(`${e.property} `) ? m.slice(e.property.length + 1) : m));
    const own = messages.length ? [`${path}: ${[...new Set(messages)].join(', ')}`] : [];
    return [...own, ...describeValidationErrors(e.children ?? [], path)];
  });
}

/** Path of the first string under `value` holding U+0000, which PostgreSQL text cannot store; null when none does. */
export function findNulString(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, v] of Object.entries(value)) {
    const found = findNulString(v, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The global pipe: unknown fields refused, types strict (no implicit
 * conversion), a body that is not a JSON object refused before
 * class-validator sees it, and text PostgreSQL cannot store (U+0000) refused
 * in bodies, queries and path parameters alike.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      forbidUnknownValues: true,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors).join('; ')),
    });
  }

  /** Query classes for which an empty query string has passed validation: it always will again. */
  private readonly emptyQueryValid = new WeakSet<object>();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === undefined || value === null) throw new BadRequestException('request body must be a JSON object');
      if (typeof value !== 'object' || Array.isArray(value)) throw new BadRequestException('request body must be a JSON object');
    }
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) {
      const entries = Object.entries((value ?? {}) as Record<string, unknown>);
      // Most listings are asked for with no query at all. Its answer does not
      // change, so after the first time it skips class-transformer and
      // class-validator; the result is what they would build from {}.
      if (entries.length === 0 && this.emptyQueryValid.has(metadata.metatype)) return new metadata.metatype();
      for (const [key, v] of entries) {
        if (Array.isArray(v)) throw new BadRequestException(`${key}: must be given once`);
      }
      if (entries.length === 0) {
        const transformed = await super.transform(value, metadata);
        this.emptyQueryValid.add(metadata.metatype);
        return transformed;
      }
    }
    if (metadata.type !== 'custom') {
      const field = findNulString(value, metadata.data ?? '');
      if (field !== null) throw new BadRequestException(`${field || metadata.type}: must not contain NUL characters`);
    }
    return super.transform(value, metadata);
  }
}
