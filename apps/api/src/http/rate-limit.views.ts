import { ApiTooManyRequestsResponse } from '@nestjs/swagger';

/**
 * The 429 of a route behind a credential: its limits are the credential's
 * and its project's. The body is the error envelope with `retry_after`
 * (error-envelope.ts), the header the standard Retry-After.
 */
export const RateLimitedResponse = (credential: string) =>
  ApiTooManyRequestsResponse({
    description: `code rate_limited: the rate limit of the ${credential} or of its project is exceeded; retry after the seconds in Retry-After (also error.retry_after)`,
    headers: { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  });
