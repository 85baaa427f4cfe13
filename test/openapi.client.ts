import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import createClient, { Client } from 'openapi-fetch';
import type { paths } from './openapi.schema';

/*
 * The typed client the end-to-end suites call the api through: its paths,
 * bodies and answers are typed from the OpenAPI document (openapi.schema.d.ts,
 * generated from it), and every answer it receives is checked against the
 * document the api serves. A presenter that adds, drops, renames or retypes
 * a field, or a status the document does not list, fails the suite that
 * meets it.
 */

export type StratusClient = Client<paths>;
type Schema = Record<string, any>;

const REF = '#/components/schemas/';

/**
 * An OpenAPI 3.0 schema as JSON Schema for Ajv, closed: `nullable` becomes a
 * union with null, and an object that lists its properties admits no other
 * (the document must name every field the api sends).
 */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, example: _example, ...rest } = schema as Schema;
  const out: Schema = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, k === 'properties' ? mapValues(v, toJsonSchema) : toJsonSchema(v)]));
  if (typeof out.$ref === 'string') out.$ref = out.$ref.replace(REF, 'openapi#/$defs/');
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return nullable ? { anyOf: [{ type: 'null' }, out] } : out;
}

function mapValues(o: Schema, f: (v: unknown) => unknown): Schema {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/** Checks answers against the operation and status the document gives them. */
export class ResponseChecker {
  private readonly ajv = new Ajv({ allErrors: true, strict: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** `METHOD /path/{template} STATUS` of every answer checked. */
  readonly seen = new Set<string>();

  constructor(readonly document: Schema) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', $defs: mapValues(document.components.schemas as Schema, toJsonSchema) });
  }

  /** The document as the api serves it at /docs/json. */
  static async load(baseUrl: string): Promise<ResponseChecker> {
    const res = await fetch(`${baseUrl}/docs/json`);
    if (res.status !== 200) throw new Error(`GET /docs/json answered ${res.status}`);
    return new ResponseChecker((await res.json()) as Schema);
  }

  /** Throws, naming the operation and what differs, when the answer is not one the document describes. */
  check(method: string, template: string, status: number, text: string, contentType: string | null): void {
    const key = `${method.toUpperCase()} ${template}`;
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${key}: not in the OpenAPI document`);
    const response = operation.responses[String(status)];
    if (!response) throw new Error(`${key}: answered ${status}, which the document does not list (${Object.keys(operation.responses).join(', ')})`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (text !== '') throw new Error(`${key} ${status}: the document shows no body, the api sent ${text.slice(0, 200)}`);
    } else {
      if (!contentType?.startsWith('application/json')) throw new Error(`${key} ${status}: content-type ${contentType}, not JSON`);
      const validate = this.validator(`${key} ${status}`, schema);
      const body = JSON.parse(text);
      if (!validate(body)) {
        const errors = (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`).join('; ');
        throw new Error(`${key} ${status}: the body is not the documented one: ${errors}\n${text.slice(0, 500)}`);
      }
    }
    this.seen.add(`${key} ${status}`);
  }

  private validator(key: string, schema: Schema): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema) as Schema);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/** A client of the api at `baseUrl` with these headers (the credential), whose every answer `checker` checks. */
export function stratusClient(baseUrl: string, checker: ResponseChecker, headers: Record<string, string> = {}): StratusClient {
  const client = createClient<paths>({ baseUrl, headers });
  client.use({
    async onResponse({ request, response, schemaPath }) {
      checker.check(request.method, schemaPath, response.status, await response.clone().text(), response.headers.get('content-type'));
    },
  });
  return client;
}

/** The body of a success answer; throws with the status and the error body otherwise. */
export function dataOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}
