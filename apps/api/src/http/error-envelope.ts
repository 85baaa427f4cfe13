import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The one error body of both surfaces: `{error: {code, message}}`. */
export interface ErrorEnvelope {
  /** `retry_after` (seconds) only on a 429, as its Retry-After header says (rate-limiter.ts). */
  error: { code: string; message: string; retry_after?: number };
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  431: 'request_header_fields_too_large',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** Every `error.code` the api sends: each status's, the two fallbacks of codeFor, and the codes of limits (429 rate_limited, 403 quota_exceeded). */
const ERROR_CODES = [...new Set([...Object.values(CODES), 'bad_request', 'internal_error', 'rate_limited', 'quota_exceeded'])];

class ErrorDetail {
  @ApiProperty({ enum: ERROR_CODES, description: 'follows the status (400 bad_request, 401 unauthorized, ...)' })
  code: string;

  @ApiProperty({ description: 'what was wrong; for a bad field it names the field' })
  message: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'on a 429 only: seconds to wait before retrying, as the Retry-After header says' })
  retry_after?: number;
}

/** The envelope as the OpenAPI document shows it, on every 4xx and 5xx answer. */
export class ErrorEnvelopeView implements ErrorEnvelope {
  @ApiProperty({ type: ErrorDetail })
  error: ErrorDetail;
}

export function codeFor(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

export function envelope(status: number, message: string, code = codeFor(status)): ErrorEnvelope {
  return { error: { code, message } };
}
