import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { HeaderObject, ParameterObject, ReferenceObject, ResponseObject, ResponsesObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorEnvelopeView } from '../http/error-envelope';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../http/idempotency.interceptor';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const ETAG_HEADER: HeaderObject = {
  description: 'Tag of this answer; send it back in If-None-Match to be told 304 while nothing changed',
  schema: { type: 'string' },
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: 304 and no body when it is still current. With ?wait=, what a long poll waits to change.',
  schema: { type: 'string' },
};

/** A JSON 200: what etag.ts tags. */
function conditional(response: ResponseObject | ReferenceObject | undefined): response is ResponseObject {
  return response !== undefined && 'content' in response && response.content?.['application/json'] !== undefined;
}

const REPLAYED: HeaderObject = {
  description: 'With an Idempotency-Key: `true` when this is the kept answer of an earlier request with the same key and body, `false` on the first',
  schema: { type: 'string', enum: ['true', 'false'] },
};

/** A create that takes Idempotency-Key (idempotency.interceptor.ts): its 2xx says whether it was replayed; 400, 409 and 422 say what the key adds. */
function idempotent(responses: ResponsesObject): void {
  for (const [status, response] of Object.entries(responses)) {
    if (/^2/.test(status) && response && 'description' in response) response.headers = { ...response.headers, [REPLAYED_HEADER]: REPLAYED };
  }
  const add = (status: string, description: string) => {
    const existing = responses[status];
    responses[status] = { description: existing && 'description' in existing ? `${existing.description}; or ${description}` : description };
  };
  add('400', 'a malformed Idempotency-Key');
  add(
    '409',
    'a request with the same Idempotency-Key is still in progress (Retry-After says when to retry), or made its resource but lost its answer (no Retry-After); ' +
      'or this request was held up 30 s before its create and a retry with its key took over (the retry makes the resource)',
  );
  add('422', 'the Idempotency-Key was first used with another body or route');
}

/**
 * The OpenAPI document of the api, from the controllers' decorators and the
 * presenters' view classes. What holds for every route is added here, once:
 * every 4xx and 5xx answer carries the error envelope (AllExceptionsFilter
 * makes it so), any route may answer 500 and 503, a route that takes
 * parameters or a body may answer 400 (and 413, 415 for the body), and a
 * route without a guard needs no credential, and every GET of JSON has an
 * ETag and answers 304 to an If-None-Match naming it (etag.ts).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Stratus')
      .setDescription('Cloud control plane: /api/cloud (Bearer token) and /v1 (x-api-key). Every error answer is `{error: {code, message}}`.')
      .setVersion('1')
      .addServer('/', 'this api')
      .addBearerAuth()
      .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key')
      .build(),
    {
      extraModels: [ErrorEnvelopeView],
      // Unique and stable: `Volumes_create`, `Databases_list`, `Cache_list`.
      operationIdFactory: (controller: string, method: string) => `${controller.replace(/Controller$/, '')}_${method}`,
    },
  );
  // As package.json says: no licence is granted.
  document.info.license = { name: 'UNLICENSED' };
  const envelope = { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeView) } } };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // A route with no guard needs no credential: said explicitly, not left to a default.
      operation.security ??= [];
      const responses = operation.responses;
      const takesInput = operation.requestBody !== undefined || (operation.parameters ?? []).length > 0;
      if (takesInput) responses['400'] ??= { description: 'invalid request: the message names the field' };
      if (operation.requestBody) {
        responses['413'] ??= { description: 'the body is over the size limit' };
        responses['415'] ??= { description: 'the body is not application/json' };
      }
      if (method === 'get' && conditional(responses['200'])) {
        // etag.ts: every successful GET has an ETag and honours If-None-Match.
        responses['200'].headers = { ...responses['200'].headers, ETag: ETAG_HEADER };
        responses['304'] ??= { description: 'not modified: the ETag named in If-None-Match is still current (after waiting up to ?wait= seconds where the route takes it)' };
        operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH];
      }
      if ((operation.parameters ?? []).some((p) => 'name' in p && p.name === IDEMPOTENCY_HEADER)) idempotent(responses);
      responses['500'] ??= { description: 'unexpected error' };
      responses['503'] ??= { description: 'PostgreSQL or Redis is out of reach (the message names it), or the api is shutting down' };
      for (const [status, response] of Object.entries(responses)) {
        if (/^[45]/.test(status) && response && 'description' in response) response.content = envelope;
      }
    }
  }
  return document;
}
