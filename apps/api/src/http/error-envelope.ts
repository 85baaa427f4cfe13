/** The one error body of both surfaces: `{error: {code, message}}`. */
export interface ErrorEnvelope {
  error: { code: string; message: string };
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

export function codeFor(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

export function envelope(status: number, message: string, code = codeFor(status)): ErrorEnvelope {
  return { error: { code, message } };
}
