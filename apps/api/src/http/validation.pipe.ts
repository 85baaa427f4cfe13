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

/**
 * The global pipe: unknown fields refused, types strict (no implicit
 * conversion), and a body that is not a JSON object refused before
 * class-validator sees it.
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

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === undefined || value === null) throw new BadRequestException('request body must be a JSON object');
      if (typeof value !== 'object' || Array.isArray(value)) throw new BadRequestException('request body must be a JSON object');
    }
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) {
      for (const [key, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (Array.isArray(v)) throw new BadRequestException(`${key}: must be given once`);
      }
    }
    return super.transform(value, metadata);
  }
}
