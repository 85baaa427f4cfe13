import { createTenant, DEMO_INSTANCE, Tenant, TestStack, testDataSource } from '@stratus/testing';
import * as fc from 'fast-check';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Agent } from 'undici';

/*
 * Malformed requests, generated from the served OpenAPI document, over every
 * route it lists: none may end in a 5xx, and every 4xx must carry the error
 * envelope `{error: {code, message}}` and nothing else. The seed is fixed, so
 * a failure reproduces; FUZZ_SEED=<n> explores other inputs.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2024);
/** Random probes per documented operation, on top of the per-property sweeps. */
const PER_OPERATION = 90;
/** Probes per path for methods the document does not list (they must 404/405 with the envelope too). */
const PER_UNLISTED_METHOD = 4;
const CONCURRENCY = 12;
const BODY_LIMIT = 1_048_576;
const MAX_DEPTH_PROBES = [33, 100, 1_000, 10_000];

/** Known-good bodies the mutations start from; anything else is built from its schema. */
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  'POST /v1/instances': { name: 'fuzz', ...DEMO_INSTANCE },
};

// ---------------------------------------------------------------- OpenAPI --

type Schema = Record<string, any>;
type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';
const JSON_TYPES: JsonType[] = ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'];

interface Operation {
  key: string;
  method: string;
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** Security scheme names of the operation ('api-key', 'bearer'); empty for public routes. */
  security: string[];
  bodySchema?: Schema;
}

function deref(doc: Schema, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let hops = 0; s.$ref && hops < 32; hops++) {
    s = (s.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, part: string) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((p: Schema) => deref(doc, p));
    const { allOf: _allOf, ...rest } = s;
    return parts.reduce(
      (acc: Schema, p: Schema) => ({
        ...acc,
        ...p,
        properties: { ...acc.properties, ...p.properties },
        required: [...(acc.required ?? []), ...(p.required ?? [])],
      }),
      rest,
    );
  }
  return s;
}

function typesOf(doc: Schema, schema: Schema): Set<JsonType> {
  const s = deref(doc, schema);
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives)) return new Set(alternatives.flatMap((a: Schema) => [...typesOf(doc, a)]));
  const types = new Set<JsonType>([s.type ?? (s.properties ? 'object' : 'string')].flat());
  if (s.nullable) types.add('null');
  if (types.has('number')) types.add('integer');
  return types;
}

function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete', 'options', 'head']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => deref(doc, p));
      const body = deref(doc, op.requestBody);
      const json = Object.entries<Schema>(body.content ?? {}).find(([type]) => /json/.test(type));
      ops.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        security: (op.security ?? doc.security ?? []).flatMap((req: Schema) => Object.keys(req)),
        bodySchema: json ? deref(doc, json[1].schema) : undefined,
      });
    }
  }
  return ops;
}

/** A value the schema accepts (the smallest sensible one). */
function exampleFor(doc: Schema, schema: Schema): unknown {
  const s = deref(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = [...typesOf(doc, s)][0];
  switch (type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k: string) => [k, exampleFor(doc, s.properties?.[k] ?? {})]));
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
}

interface PropertyPath {
  path: string[];
  schema: Schema;
  required: boolean;
}

/** Every property of a body schema, nested objects included. */
function propertyPaths(doc: Schema, schema: Schema, prefix: string[] = [], depth = 0): PropertyPath[] {
  const s = deref(doc, schema);
  if (depth > 4) return [];
  return Object.entries<Schema>(s.properties ?? {}).flatMap(([name, prop]) => {
    const resolved = deref(doc, prop);
    const here = { path: [...prefix, name], schema: resolved, required: (s.required ?? []).includes(name) };
    return resolved.properties ? [here, ...propertyPaths(doc, resolved, here.path, depth + 1)] : [here];
  });
}

// ------------------------------------------------------------ generation --

type BodySpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: number[] }
  | { kind: 'deep'; depth: number; style: 'array' | 'object' | 'mixed'; under?: string }
  | { kind: 'huge-field'; base: unknown; field: string; length: number }
  | { kind: 'oversize'; bytes: number; style: 'string' | 'array' | 'whitespace' };

interface Probe {
  route: string;
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: BodySpec;
  label: string;
}

interface Outcome {
  /** 0: no answer (the connection closed or reset first). */
  status: number;
  text: string;
  ms: number;
  /** Bytes of request body sent. */
  bytes: number;
}

const deepClone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/** An own, enumerable property even for `__proto__`, so JSON.stringify sends it. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function setAt(target: Record<string, any>, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part];
  }
  defineOwn(node, path[path.length - 1], value);
}

/** Percent-encodes every byte outside RFC 3986's unreserved set (lone surrogates become U+FFFD). */
function pct(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** Characters a header value may carry on the wire (tab, visible ASCII, obs-text). */
const headerChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
  fc.constant('\t'),
);
const headerString = (maxLength = 64) => fc.string({ unit: headerChar, maxLength });
/** Raw URL characters undici puts on the wire as they are (0x21-0xff). */
const rawUrlString = fc.string({
  unit: fc.integer({ min: 0x21, max: 0xff }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 24,
});

const nastyStrings = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202eevil',
  '\ufeff',
  '💥'.repeat(20),
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  "' OR '1'='1",
  '"; DROP TABLE instances; --',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%00',
  '\\',
  '\r\n\r\n',
  ' ',
  '',
  'null',
  'undefined',
  'NaN',
  '__proto__',
  'constructor',
  '[object Object]',
);
const weirdString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  nastyStrings,
  fc.tuple(fc.string({ maxLength: 8 }), nastyStrings, fc.string({ maxLength: 8 })).map((p) => p.join('')),
);

const jsonOfType: Record<JsonType, fc.Arbitrary<unknown>> = {
  string: weirdString,
  integer: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31, -(2 ** 53), Number.MAX_SAFE_INTEGER)),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
};

/** Values of a JSON type the property does not accept, and bound violations it declares. */
function wrongValues(doc: Schema, prop: PropertyPath): Array<[string, fc.Arbitrary<unknown>]> {
  const allowed = typesOf(doc, prop.schema);
  const out: Array<[string, fc.Arbitrary<unknown>]> = [];
  for (const t of JSON_TYPES) {
    if (allowed.has(t)) continue;
    // null reads as "absent" for an optional field: not a wrong value there.
    if (t === 'null' && !prop.required) continue;
    out.push([t, jsonOfType[t]]);
  }
  const s = prop.schema;
  if (allowed.has('string') && typeof s.maxLength === 'number') {
    out.push(['too-long', fc.integer({ min: s.maxLength + 1, max: s.maxLength + 64 }).map((n) => 'y'.repeat(n))]);
  }
  if (allowed.has('integer') && !allowed.has('string')) {
    const bounds: number[] = [];
    if (typeof s.minimum === 'number') bounds.push(s.minimum - 1);
    if (typeof s.maximum === 'number') bounds.push(s.maximum + 1);
    if (bounds.length) out.push(['out-of-range', fc.constantFrom(...bounds, -1e308, 1e308)]);
  }
  if (allowed.has('array') && s.items) {
    const itemTypes = typesOf(doc, s.items);
    const wrongItems = JSON_TYPES.filter((t) => !itemTypes.has(t)).map((t) => jsonOfType[t]);
    out.push(['wrong-items', fc.array(fc.oneof(...wrongItems), { minLength: 1, maxLength: 3 })]);
  }
  return out;
}

const INVALID_JSON = [
  '{',
  '}',
  '{"name":',
  '{"name":"x"',
  "{'name':'x'}",
  '{"name":"x",}',
  '{name:"x"}',
  '[1,2,',
  'NaN',
  'undefined',
  'tru',
  'nul',
  '"unterminated',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '\ufeff{"name":"x"}',
  '{"a":01}',
  '{"a":-}',
  '{"a":.5}',
  '{"a":"\\u12"}',
  '{"a":"\\x41"}',
  '{"a":"line\nbreak"}',
  '/* comment */ {}',
  '{"a":1e999999}',
  '{"__proto__":{"polluted":true}}',
  '{"name":"x","__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":"\\ud800"}',
  '{"a":1,"a":{"$gt":""}}',
  '\u0000',
  '{"a":"\u0000"}',
  ' \t\r\n ',
];

/** Values every documented query parameter gets alone; the cursor-shaped ones carry keys no cursor was issued with. */
const QUERY_SWEEP = [
  '',
  '0',
  '-1',
  '1.5',
  '1e2',
  '99999999999999999999',
  'NaN',
  '\u0000',
  'q'.repeat(600),
  b64url(JSON.stringify({ k: '\u0000' })),
  b64url(JSON.stringify({ k: 'a\u0000b' })),
  b64url(JSON.stringify({ k: '\ud800' })),
  b64url(JSON.stringify({ k: "' OR 1=1 --" })),
  b64url(JSON.stringify({ k: 42 })),
  b64url(JSON.stringify({ k: 'x'.repeat(300) })),
  b64url('null'),
  b64url('{"k":'),
];

const MULTIPART = [
  '------fuzz\r\nContent-Disposition: form-data; name="name"\r\n\r\nweb\r\n------fuzz--\r\n',
  '------fuzz\r\nContent-Disposition: form-data; name="file"; filename="../../x"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001\u0002\r\n',
  '--\r\n--\r\n',
];
const XML = [
  '<?xml version="1.0"?><instance><name>web</name></instance>',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>',
  '<unclosed',
];

const WRONG_CONTENT_TYPES: Array<string | null> = [
  null,
  'text/plain',
  'text/plain; charset=utf-8',
  'application/xml',
  'text/xml',
  'multipart/form-data; boundary=----fuzz',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/jsonx',
  'application/json-patch',
  'json',
  '*/*',
  '/',
  ';',
  ';;;',
  'application/',
  'text/json; charset=utf-8',
];
const ODD_JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/json; boundary=x',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/problem+json',
  'application/json, text/plain',
  'application/json; charset="',
];

interface BodyChoice {
  label: string;
  body?: BodySpec;
  /** undefined: application/json when there is a body; null: no content-type header. */
  contentType?: string | null;
}

function bodyArb(doc: Schema, op: Operation, base: Record<string, unknown>): fc.Arbitrary<BodyChoice> {
  const props = op.bodySchema ? propertyPaths(doc, op.bodySchema) : [];
  const known = new Set(props.map((p) => p.path[0]));
  const json = (label: string, value: fc.Arbitrary<unknown>) => value.map((v): BodyChoice => ({ label, body: { kind: 'json', value: v } }));

  const invalidJson = fc.oneof(
    fc.constantFrom(...INVALID_JSON).map((t): BodyChoice => ({ label: 'invalid-json', body: { kind: 'text', text: t } })),
    fc.tuple(fc.nat()).map(([n]): BodyChoice => {
      const full = JSON.stringify(base);
      return { label: 'truncated-json', body: { kind: 'text', text: full.slice(0, n % Math.max(1, full.length)) } };
    }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }).map((t): BodyChoice => ({ label: 'garbage-text-as-json', body: { kind: 'text', text: t } })),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((b): BodyChoice => ({ label: 'invalid-utf8', body: { kind: 'bytes', bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, ...b, 0x22, 0x7d] } })),
  );
  const deep = fc
    .record({
      depth: fc.oneof(fc.constantFrom(...MAX_DEPTH_PROBES), fc.integer({ min: 33, max: 20_000 })),
      style: fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
      under: fc.option(fc.constantFrom(...(known.size ? [...known] : ['a'])), { nil: undefined }),
    })
    .map((d): BodyChoice => ({ label: `deep-${d.style}-${d.depth}`, body: { kind: 'deep', ...d } }));
  const oversize = fc
    .record({
      bytes: fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 600_000 }),
      style: fc.constantFrom<'string' | 'array' | 'whitespace'>('string', 'array', 'whitespace'),
      contentType: fc.constantFrom<string | undefined | null>(undefined, undefined, undefined, 'text/plain', null),
    })
    .map((o): BodyChoice => ({ label: `oversize-${o.style}`, body: { kind: 'oversize', bytes: o.bytes, style: o.style }, contentType: o.contentType }));
  const wrongContentType = fc.oneof(
    fc.tuple(fc.constantFrom(...WRONG_CONTENT_TYPES), fc.constantFrom<'json' | 'text'>('json', 'text')).map(([ct, kind]): BodyChoice => ({
      label: `content-type:${ct ?? 'none'}`,
      body: kind === 'json' ? { kind: 'json', value: base } : { kind: 'text', text: 'name=web&image_id=demo-web' },
      contentType: ct,
    })),
    fc.constantFrom(...MULTIPART).map((t): BodyChoice => ({ label: 'multipart-garbage', body: { kind: 'text', text: t }, contentType: 'multipart/form-data; boundary=----fuzz' })),
    fc.constantFrom(...XML).map((t): BodyChoice => ({ label: 'xml', body: { kind: 'text', text: t }, contentType: 'application/xml' })),
    fc.constantFrom(...ODD_JSON_CONTENT_TYPES).map((ct): BodyChoice => ({ label: `content-type:${ct}`, body: { kind: 'json', value: { ...base, fuzz: true } }, contentType: ct })),
    headerString(40).map((ct): BodyChoice => ({ label: 'content-type:random', body: { kind: 'json', value: base }, contentType: ct })),
  );
  const wholeBodyWrongType = json(
    'body-not-an-object',
    fc.oneof(
      fc.constantFrom([], [base], '', 'body', 0, 42, -1.5, true, false, null),
      fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
    ),
  );

  if (!op.bodySchema) {
    return fc.oneof(
      { weight: 60, arbitrary: fc.constant<BodyChoice>({ label: 'no-body' }) },
      { weight: 6, arbitrary: json('unexpected-json-body', fc.jsonValue({ maxDepth: 3 })) },
      { weight: 6, arbitrary: invalidJson },
      { weight: 3, arbitrary: deep },
      { weight: 3, arbitrary: oversize },
      { weight: 6, arbitrary: wrongContentType },
    );
  }

  const wrongType = fc
    .constantFrom(...props)
    .chain((p) => {
      const choices = wrongValues(doc, p);
      return fc.constantFrom(...choices).chain(([t, arb]) => arb.map((v) => ({ p, t, v })));
    })
    .map(({ p, t, v }): BodyChoice => {
      const body = deepClone(base);
      setAt(body, p.path, v);
      return { label: `wrong-type ${p.path.join('.')}=${t}`, body: { kind: 'json', value: body } };
    });
  const required = props.filter((p) => p.path.length === 1 && p.required).map((p) => p.path[0]);
  const missing = () =>
    fc.subarray(required, { minLength: 1 }).map((drop): BodyChoice => {
      const body = deepClone(base);
      for (const k of drop) delete body[k];
      return { label: `missing ${drop.join(',')}`, body: { kind: 'json', value: body } };
    });
  const extra = fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'project_id', 'status', 'id', '', 'toString'), fc.string({ minLength: 1, maxLength: 16 })),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((pairs) => pairs.filter(([k]) => !known.has(k)))
    .filter((pairs) => pairs.length > 0)
    .map((pairs): BodyChoice => {
      const body = deepClone(base);
      for (const [k, v] of pairs) defineOwn(body, k, v);
      return { label: `extra ${pairs.map(([k]) => JSON.stringify(k)).join(',')}`, body: { kind: 'json', value: body } };
    });
  // Right types, hostile content: every string field at once, so the lookups behind them see it.
  const stringProps = props.filter((p) => p.path.length === 1 && typesOf(doc, p.schema).has('string'));
  const weird = fc.array(weirdString, { minLength: stringProps.length, maxLength: stringProps.length }).map((values): BodyChoice => {
    const body = deepClone(base);
    stringProps.forEach((p, i) => defineOwn(body, p.path[0], values[i]));
    return { label: 'weird-strings', body: { kind: 'json', value: body } };
  });
  const huge = fc
    .record({
      field: fc.constantFrom(...stringProps.map((p) => p.path[0]), 'unknown_field'),
      length: fc.integer({ min: 70_000, max: BODY_LIMIT - 1_000 }),
    })
    .map((h): BodyChoice => ({ label: `huge-string ${h.field}`, body: { kind: 'huge-field', base, ...h } }));

  return fc.oneof(
    { weight: 20, arbitrary: wrongType },
    // A body with no required field (an update's, where every field left out keeps its value) has nothing to leave out.
    ...(required.length ? [{ weight: 8, arbitrary: missing() }] : []),
    { weight: 8, arbitrary: extra },
    { weight: 8, arbitrary: weird },
    { weight: 5, arbitrary: huge },
    { weight: 6, arbitrary: wholeBodyWrongType },
    { weight: 10, arbitrary: invalidJson },
    { weight: 6, arbitrary: deep },
    { weight: 4, arbitrary: oversize },
    { weight: 10, arbitrary: wrongContentType },
    { weight: 2, arbitrary: fc.constant<BodyChoice>({ label: 'no-body' }) },
  );
}

function materialize(body: BodySpec | undefined): string | Buffer | undefined {
  if (!body) return undefined;
  switch (body.kind) {
    case 'json':
      return JSON.stringify(body.value) ?? 'undefined';
    case 'text':
      return body.text;
    case 'bytes':
      return Buffer.from(body.bytes);
    case 'deep': {
      const open = body.style === 'array' ? '[' : body.style === 'object' ? '{"a":' : null;
      let text: string;
      if (open) {
        text = open.repeat(body.depth) + '1' + (body.style === 'array' ? ']' : '}').repeat(body.depth);
      } else {
        const opens: string[] = [];
        for (let i = 0; i < body.depth; i++) opens.push(i % 2 ? '[' : '{"k":');
        text =
          opens.join('') +
          'null' +
          opens
            .reverse()
            .map((o) => (o === '[' ? ']' : '}'))
            .join('');
      }
      return body.under ? `{${JSON.stringify(body.under)}:${text}}` : text;
    }
    case 'huge-field':
      return JSON.stringify({ ...(body.base as object), [body.field]: 'h'.repeat(body.length) });
    case 'oversize':
      if (body.style === 'string') return `{"name":"${'o'.repeat(body.bytes)}"}`;
      if (body.style === 'array') return `[${'1,'.repeat(Math.ceil(body.bytes / 2))}1]`;
      return `{}${' '.repeat(body.bytes)}`;
  }
}

function preview(body: BodySpec | undefined): string {
  const raw = materialize(body);
  if (raw === undefined) return '(none)';
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  return `${JSON.stringify(text.slice(0, 160))}${text.length > 160 ? '…' : ''} (${bytes} bytes)`;
}

// ------------------------------------------------------------------ test --

function isEnvelope(text: string): boolean {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  if (Object.keys(body).join() !== 'error') return false;
  const error = body.error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return false;
  return Object.keys(error).sort().join() === 'code,message' && typeof error.code === 'string' && typeof error.message === 'string';
}

describe('fuzzing every documented route', () => {
  let stack: TestStack;
  let db: DataSource;
  let tenant: Tenant;
  let agent: Agent;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    tenant = await createTenant(db);
    agent = new Agent({ connections: CONCURRENCY, headersTimeout: 20_000, bodyTimeout: 20_000 });
  });

  afterAll(async () => {
    await agent?.close();
    await stack?.stop();
    await db?.destroy();
  });

  async function send(probe: Probe): Promise<Outcome> {
    const started = Date.now();
    const body = materialize(probe.body);
    const bytes = body === undefined ? 0 : Buffer.byteLength(body);
    try {
      const res = await agent.request({
        origin: stack.http.baseUrl,
        path: probe.path,
        method: probe.method,
        headers: probe.headers.flat(),
        body,
      });
      const text = await res.body.text();
      return { status: res.statusCode, text, ms: Date.now() - started, bytes };
    } catch (err) {
      const reason = `${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
      return { status: 0, text: `no response: ${reason}`, ms: Date.now() - started, bytes };
    }
  }

  describe('faults the fuzzer found, each a clear 400 that creates nothing', () => {
    const api = () => stack.http.with({ 'x-api-key': tenant.apiKey });
    const cloud = () => stack.http.with({ authorization: `Bearer ${tenant.token}` });
    const count = async (table: string) => (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [tenant.projectId]))[0].n;

    it('null for an optional field (it was read as a string: 500)', async () => {
      const instance = await api().post('/v1/instances', { name: 'nul', ...DEMO_INSTANCE, dname: null });
      expect([instance.status, instance.body.error.message]).toEqual([400, expect.stringMatching(/^dname: /)]);
      const instanceId = '00000000-0000-4000-8000-000000000000';
      const host = await cloud().post('/api/cloud/dns/create', { instanceId, forwardPort: 3000, domain: null });
      expect([host.status, host.body.error.message]).toEqual([400, 'domain: must be a string']);
      const volume = await cloud().post('/api/cloud/volumes/create', { name: 'v', size: 1, description: null });
      expect([volume.status, volume.body.error.message]).toEqual([400, 'description: must be a string']);
      expect([await count('instances'), await count('volumes')]).toEqual([0, 0]);
    });

    it('a body that is not valid UTF-8', async () => {
      // {"name":"<ff fe>","size":1}: Content-Length is right, the bytes are not UTF-8.
      const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","size":1}')]);
      const res = await fetch(`${stack.http.baseUrl}/api/cloud/volumes/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: bytes,
      });
      expect([res.status, await res.json()]).toEqual([400, { error: { code: 'bad_request', message: 'request body is not valid UTF-8' } }]);
      expect(await count('volumes')).toBe(0);
    });

    it.each(['prototype', '__proto__', 'constructor'])('a body with a %s key, at the top or nested', async (key) => {
      const top = await cloud().post('/api/cloud/volumes/create', `{"name":"v","size":1,"${key}":{"x":1}}`);
      expect([top.status, top.body.error.message]).toEqual([400, `${key}: property ${key} should not exist`]);
      const nested = await cloud().post('/api/cloud/dns/update-dns', `{"instanceId":"00000000-0000-4000-8000-000000000000","metadata":{"${key}":"x"}}`);
      expect([nested.status, nested.body.error.message]).toEqual([400, `metadata.${key}: property ${key} should not exist`]);
      expect(await count('volumes')).toBe(0);
    });
  });

  it('answers >= 1000 malformed requests without a 5xx, every 4xx in the error envelope', async () => {
    const docRes = await stack.http.get('/docs/json');
    expect(docRes.status).toBe(200);
    const doc = docRes.body as Schema;
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(0);

    const credentials: Record<string, Array<[string, string]>> = {
      'api-key': [['x-api-key', tenant.apiKey]],
      bearer: [['authorization', `Bearer ${tenant.token}`]],
    };
    const validAuth = (op: Operation): Array<[string, string]> =>
      op.security.length ? op.security.flatMap((s) => credentials[s] ?? []) : [...credentials['api-key'], ...credentials.bearer];

    const keyId = /^stk_([^_]+)_/.exec(tenant.apiKey)![1];
    const jwtShaped = fc
      .record({
        header: fc.oneof(
          fc.record({ alg: fc.constantFrom('RS256', 'none', 'HS256', 'ES256', 'PS256', 'RS512', 'EdDSA', ''), kid: fc.option(weirdString), typ: fc.constant('JWT') }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        payload: fc.oneof(
          fc.record({
            project_id: fc.oneof(fc.constant(tenant.projectId), weirdString, fc.integer()),
            sub: weirdString,
            exp: fc.oneof(fc.integer(), fc.constant(9_999_999_999)),
            iss: fc.constantFrom('stratus-local', 'evil'),
            aud: fc.constantFrom('stratus', ['stratus'], 42),
          }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        sig: fc.uint8Array({ maxLength: 300 }),
      })
      .map(({ header, payload, sig }) => `Bearer ${b64url(JSON.stringify(header) ?? '')}.${b64url(JSON.stringify(payload) ?? '')}.${b64url(Buffer.from(sig))}`);
    type Auth = { label: string; headers: Array<[string, string]> };
    const authArb = (op: Operation): fc.Arbitrary<Auth> =>
      fc.oneof(
        { weight: 55, arbitrary: fc.constant<Auth>({ label: 'valid-credential', headers: validAuth(op) }) },
        { weight: 10, arbitrary: fc.constant<Auth>({ label: 'no-credential', headers: [] }) },
        {
          weight: 8,
          arbitrary: fc
            .oneof(
              headerString(80),
              fc.constantFrom('stk_', 'stk__', `stk_${keyId}_`, 'Bearer x'),
              fc.tuple(fc.stringMatching(/^[a-z0-9]{16}$/), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)).map(([k, s]) => `stk_${k}_${s}`),
              fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `stk_${keyId}_${s}`),
              fc.integer({ min: 1_000, max: 6_000 }).map((n) => `stk_${'k'.repeat(n)}`),
            )
            .map((k) => ({ label: 'garbage-api-key', headers: [['x-api-key', k]] as Array<[string, string]> })),
        },
        {
          weight: 4,
          arbitrary: headerString(40).map((k) => ({
            label: 'duplicate-api-key',
            headers: [
              ['x-api-key', tenant.apiKey],
              ['x-api-key', k],
            ] as Array<[string, string]>,
          })),
        },
        {
          weight: 8,
          arbitrary: fc
            .oneof(
              headerString(120),
              headerString(120).map((t) => `Bearer ${t}`),
              fc.constantFrom(
                'Bearer',
                'Bearer ',
                'bearer x.y.z',
                'Basic Zm9vOmJhcg==',
                'Bearer a.b',
                'Bearer ...',
                `Bearer ${tenant.token}x`,
                `Bearer ${tenant.apiKey}`,
                `Bearer ${tenant.token}, Bearer x`,
              ),
            )
            .map((a) => ({ label: 'garbage-bearer', headers: [['authorization', a]] as Array<[string, string]> })),
        },
        { weight: 7, arbitrary: jwtShaped.map((a) => ({ label: 'jwt-shaped-bearer', headers: [['authorization', a]] as Array<[string, string]> })) },
        {
          weight: 4,
          arbitrary: fc
            .integer({ min: 4_000, max: 40_000 })
            .map((n) => ({ label: `overlong-bearer-${n}`, headers: [['authorization', `Bearer ${'A'.repeat(n)}`]] as Array<[string, string]> })),
        },
      );

    const requestIdArb = fc.oneof(
      { weight: 50, arbitrary: fc.constant<Array<[string, string]>>([]) },
      { weight: 10, arbitrary: fc.stringMatching(/^[\w.-]{1,128}$/).map((id): Array<[string, string]> => [['x-request-id', id]]) },
      {
        weight: 25,
        arbitrary: fc
          .oneof(
            headerString(64),
            fc.integer({ min: 129, max: 3_000 }).map((n) => 'r'.repeat(n)),
            fc.constantFrom('', ' ', 'a b', '../../x', '\u00ff\u00fe', '<script>'),
          )
          .map((id): Array<[string, string]> => [['x-request-id', id]]),
      },
      {
        weight: 5,
        arbitrary: fc.tuple(headerString(16), headerString(16)).map(([a, b]): Array<[string, string]> => [
          ['x-request-id', a],
          ['x-request-id', b],
        ]),
      },
    );
    const extraHeadersArb = fc.subarray<[string, string]>(
      [
        ['accept', 'application/xml'],
        ['accept', '*/*;q=garbage'],
        ['accept-encoding', 'gzip;q=x, br, zstd, ???'],
        ['content-encoding', 'gzip'],
        ['content-language', '\u00ff\u00ff'],
        ['x-forwarded-for', 'not-an-ip, ::zz'],
        ['x-forwarded-proto', 'gopher'],
        ['cookie', '=; ;;a=\u00e9'],
        ['range', 'bytes=-1-2'],
        ['if-none-match', '*, "x'],
        ['origin', 'null'],
        ['x-http-method-override', 'DELETE'],
      ],
      { maxLength: 3 },
    );

    const queryValue = fc.oneof(
      { weight: 3, arbitrary: weirdString },
      { weight: 1, arbitrary: fc.integer().map(String) },
      { weight: 2, arbitrary: fc.constantFrom('', '0', '-1', '101', '1.5', '1e2', '0x10', '999999999999', ' 5', '5 ', 'true', 'null', '[]', '{}') },
      { weight: 1, arbitrary: fc.integer({ min: 500, max: 4_000 }).map((n) => 'q'.repeat(n)) },
      // Cursors: well-formed ones around hostile keys, and base64url of anything.
      { weight: 3, arbitrary: weirdString.map((k) => b64url(JSON.stringify({ k }))) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => b64url(JSON.stringify(v) ?? '')) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 48 }).map((b) => b64url(Buffer.from(b))) },
    );
    const queryArb = (op: Operation): fc.Arbitrary<{ label: string; query: string }> => {
      const keys = fc.oneof(
        ...(op.queryParams.length ? [fc.constantFrom(...op.queryParams)] : []),
        fc.constantFrom('__proto__', 'constructor', 'limit[]', 'a[b]', 'toString', 'hasOwnProperty', ''),
        weirdString,
      );
      const pairs = fc
        .array(fc.tuple(keys, queryValue, fc.boolean()), { minLength: 1, maxLength: 6 })
        .chain((list) =>
          // Repeat some parameters: ?limit=1&limit=2.
          fc.subarray(list).map((again) => [...list, ...again]),
        )
        .map((list) => ({ label: 'query', query: '?' + list.map(([k, v, bare]) => (bare && v === '' ? pct(k) : `${pct(k)}=${pct(v)}`)).join('&') }));
      const raw = fc
        .oneof(rawUrlString, fc.constantFrom('%', '%zz', '=%', '&&&', '==', 'a=%C3%28', 'a=%E0%A4%A', 'a=%00', '&=&=', '?', '#frag', ';a=b', '\u00ff\u00fe'))
        .map((q) => ({ label: 'raw-query', query: `?${q}` }));
      // Past Node's 16 KiB header limit: must be a 431 in the envelope, not a reset.
      const veryLong = fc.integer({ min: 8_000, max: 40_000 }).map((n) => ({ label: 'very-long-query', query: `?cursor=${'v'.repeat(n)}` }));
      return fc.oneof(
        { weight: 50, arbitrary: fc.constant({ label: '', query: '' }) },
        { weight: 36, arbitrary: pairs },
        { weight: 12, arbitrary: raw },
        { weight: 2, arbitrary: veryLong },
      );
    };

    const pathValue = fc.oneof(
      { weight: 20, arbitrary: fc.uuid().map(pct) },
      { weight: 20, arbitrary: weirdString.map(pct) },
      { weight: 10, arbitrary: fc.integer({ min: 400, max: 5_000 }).map((n) => 'i'.repeat(n)) },
      {
        weight: 20,
        arbitrary: fc.constantFrom(
          '%',
          '%zz',
          '%C3%28',
          '%E0%A4%A',
          '%FF%FE',
          '%00',
          '%2F..%2F',
          '%2e%2e',
          '..',
          '.',
          ';',
          ';a=b',
          '*',
          '%25',
          '{id}',
          ':id',
          '\u00e9t\u00e9',
          '\u00ff',
        ),
      },
      { weight: 10, arbitrary: rawUrlString },
    );

    const probes: Probe[] = [];
    const baseFor = (op: Operation): Record<string, unknown> => deepClone(VALID_BODIES[op.key] ?? (op.bodySchema ? exampleFor(doc, op.bodySchema) : {}));
    const assemble = (
      op: { key: string; method: string; template: string; pathParams: string[] },
      parts: {
        pathValues: string[];
        query: { label: string; query: string };
        auth: { label: string; headers: Array<[string, string]> };
        requestId: Array<[string, string]>;
        extra: Array<[string, string]>;
        body: BodyChoice;
      },
    ): Probe => {
      let path = op.template;
      op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, parts.pathValues[i] ?? '')));
      const headers: Array<[string, string]> = [...parts.auth.headers, ...parts.requestId, ...parts.extra];
      if (parts.body.body && parts.body.contentType !== null) headers.push(['content-type', parts.body.contentType ?? 'application/json']);
      return {
        route: op.key,
        method: op.method,
        path: path + parts.query.query,
        headers,
        body: parts.body.body,
        label: [parts.auth.label, parts.body.label, parts.query.label].filter(Boolean).join(' | '),
      };
    };

    ops.forEach((op, i) => {
      const base = baseFor(op);
      const arb = fc.record({
        pathValues: fc.array(pathValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
        query: queryArb(op),
        auth: authArb(op),
        requestId: requestIdArb,
        extra: extraHeadersArb,
        body: bodyArb(doc, op, base),
      });
      for (const parts of fc.sample(arb, { seed: SEED + i, numRuns: PER_OPERATION })) probes.push(assemble(op, parts));

      const fixed = {
        pathValues: op.pathParams.map(() => 'x'),
        query: { label: '', query: '' },
        auth: { label: 'valid-credential', headers: validAuth(op) },
        requestId: [],
        extra: [],
      };
      // A sweep of each documented query parameter alone, so hostile values get past the guard and the whitelist.
      op.queryParams.forEach((name, j) => {
        const values = [
          ...QUERY_SWEEP.map((v) => `${pct(name)}=${pct(v)}`),
          `${pct(name)}=1&${pct(name)}=2`,
          `${pct(name)}`,
          ...fc.sample(queryValue, { seed: SEED * 17 + i * 100 + j, numRuns: 6 }).map((v) => `${pct(name)}=${pct(v)}`),
        ];
        for (const q of values) {
          probes.push(assemble(op, { ...fixed, query: { label: `query-sweep ${name}`, query: `?${q}` }, body: { label: 'no-body' } }));
        }
      });

      if (!op.bodySchema) return;
      // A sweep, so every property sees each JSON type it does not accept, with a credential that gets past the guard.
      propertyPaths(doc, op.bodySchema).forEach((prop, j) => {
        wrongValues(doc, prop).forEach(([t, valueArb], k) => {
          const [value] = fc.sample(valueArb, { seed: SEED * 31 + i * 1_000 + j * 10 + k, numRuns: 1 });
          const body = deepClone(base);
          setAt(body, prop.path, value);
          probes.push(assemble(op, { ...fixed, body: { label: `sweep ${prop.path.join('.')}=${t}`, body: { kind: 'json', value: body } } }));
        });
      });
      // The valid body, and one hostile-but-well-typed string at a time: the only probes that may create rows.
      probes.push(assemble(op, { ...fixed, body: { label: 'valid-body', body: { kind: 'json', value: base } } }));
      const stringProps = propertyPaths(doc, op.bodySchema).filter((p) => p.path.length === 1 && typesOf(doc, p.schema).has('string'));
      const values = fc.sample(fc.oneof(nastyStrings, weirdString), { seed: SEED + 7_777 + i, numRuns: stringProps.length });
      stringProps.forEach((prop, j) => {
        const body = deepClone(base);
        defineOwn(body, prop.path[0], values[j]);
        probes.push(assemble(op, { ...fixed, body: { label: `one-weird-string ${prop.path[0]}`, body: { kind: 'json', value: body } } }));
      });
    });

    // Methods the document does not list for a path.
    const paths = [...new Set(ops.map((o) => o.template))];
    paths.forEach((template, i) => {
      const listed = new Set(ops.filter((o) => o.template === template).map((o) => o.method));
      const pathParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
        .filter((m) => !listed.has(m))
        .forEach((method, k) => {
          const fake: Operation = { key: `${method} ${template}`, method, template, pathParams, queryParams: [], security: ops.find((o) => o.template === template)!.security };
          const arb = fc.record({
            pathValues: fc.array(pathValue, { minLength: pathParams.length, maxLength: pathParams.length }),
            query: queryArb(fake),
            auth: authArb(fake),
            requestId: requestIdArb,
            extra: extraHeadersArb,
            body: bodyArb(doc, { ...fake, bodySchema: undefined }, {}),
          });
          for (const parts of fc.sample(arb, { seed: SEED + 50_000 + i * 10 + k, numRuns: PER_UNLISTED_METHOD })) {
            probes.push({ ...assemble(fake, parts), route: `(unlisted) ${fake.key}` });
          }
        });
    });

    // Send them all, a few at a time.
    const started = Date.now();
    const results: Array<{ probe: Probe; outcome: Outcome }> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < probes.length) {
          const probe = probes[next++];
          results.push({ probe, outcome: await send(probe) });
        }
      }),
    );
    const elapsed = Date.now() - started;

    // A body over the limit is refused as soon as its content-length is read, and the connection is
    // closed (RFC 9110 15.5.14 allows it): a client still uploading may see the reset before the 413.
    // That alone is no failure; every other request must be answered.
    const cutOff = results.filter(({ outcome }) => outcome.status === 0 && outcome.bytes > BODY_LIMIT);
    const oversized = results.filter(({ outcome }) => outcome.bytes > BODY_LIMIT);
    const failures = results.filter((r) => (r.outcome.status === 0 && !cutOff.includes(r)) || r.outcome.status >= 500 || (r.outcome.status >= 400 && !isEnvelope(r.outcome.text)));
    const perRoute = new Map<string, number>(ops.map((o) => [o.key, 0]));
    const statuses = new Map<number, number>();
    for (const { probe, outcome } of results) {
      if (perRoute.has(probe.route)) perRoute.set(probe.route, perRoute.get(probe.route)! + 1);
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    }
    const created = results.filter(({ probe, outcome }) => probe.method === 'POST' && outcome.status >= 200 && outcome.status < 300).length;
    console.log(
      `fuzz: ${results.length} requests over ${ops.length} documented operations in ${elapsed} ms (seed ${SEED}); ` +
        `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; ` +
        `per route ${JSON.stringify(Object.fromEntries(perRoute))}; ${created} accepted creates; ` +
        `${cutOff.length} of ${oversized.length} oversized uploads cut off before the answer`,
    );

    // One line per distinct answer, then a few offending requests in full.
    const kinds = new Map<string, number>();
    for (const { outcome } of failures) {
      const kind = `${outcome.status || 'no response'}: ${outcome.text.slice(0, 120)}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const summary = [...kinds].map(([kind, n]) => `  ${n} x ${kind}`).join('\n');
    const examples = new Map<string, (typeof failures)[number]>();
    for (const f of failures) {
      const kind = `${f.outcome.status}: ${f.outcome.text.slice(0, 120)}`;
      if (!examples.has(kind)) examples.set(kind, f);
    }
    const report = [...examples.values(), ...failures]
      .filter((f, i, all) => all.indexOf(f) === i)
      .slice(0, 8)
      .map(({ probe, outcome }) =>
        [
          `${probe.method} ${probe.path.length > 200 ? probe.path.slice(0, 200) + `… (${probe.path.length} chars)` : probe.path}  [${probe.route}]`,
          `  probe:   ${probe.label}`,
          `  headers: ${JSON.stringify(probe.headers.map(([k, v]) => [k, v.length > 80 ? `${v.slice(0, 80)}… (${v.length} chars)` : v]))}`,
          `  body:    ${preview(probe.body)}`,
          `  => ${outcome.status || 'no response'} after ${outcome.ms} ms: ${outcome.text.slice(0, 300)}`,
        ].join('\n'),
      )
      .join('\n\n');
    // The one verdict on the answers; thrown, not diffed, so the report prints as it is.
    if (failures.length) {
      throw new Error(
        `${failures.length} of ${results.length} fuzzed requests got a 5xx, no answer, or a 4xx outside the envelope ` +
          `(seed ${SEED}; api log ${join(stack.logsDir, 'api.log')}):\n${summary}\n\n${report}`,
      );
    }
    expect(results.length).toBeGreaterThanOrEqual(1_000);
    // Most oversized uploads are still answered, so the 413 envelope is checked too.
    expect(cutOff.length).toBeLessThan(oversized.length / 2);
    expect([...perRoute].filter(([, count]) => count < 20)).toEqual([]);
    expect(created).toBeLessThan(20);
    // Still standing.
    expect((await stack.http.get('/health')).status).toBe(200);
    expect(stack.process('api')?.exitCode).toBeNull();
  });
});
