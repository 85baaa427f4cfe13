import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { format } from 'prettier';
import { ApiModule } from '../apps/api/src/api.module';
import { buildOpenApiDocument } from '../apps/api/src/openapi/openapi.document';

/*
 * Writes the OpenAPI document the api serves at /docs/json, built from the
 * api's module in preview mode (no provider is made, so no PostgreSQL, Redis
 * or listening port is needed), for Redocly to lint; and checks that the
 * committed TypeScript types of the document, which the end-to-end suites'
 * client is typed with, are those it generates (`--write` rewrites them).
 *
 *   node -r ./scripts/ts-register.js scripts/openapi.ts [--write]
 */

const ROOT = join(__dirname, '..');
/** The document, for `redocly lint` (dist/ is not committed). */
const DOCUMENT_FILE = join(ROOT, 'dist', 'openapi.json');
/** The generated `paths` types the e2e client (test/openapi.client.ts) is typed with. */
const TYPES_FILE = join(ROOT, 'test', 'openapi.schema.d.ts');

async function main(write: boolean): Promise<void> {
  const app = await NestFactory.create(ApiModule, new FastifyAdapter(), { preview: true, logger: false });
  const document = buildOpenApiDocument(app);
  await app.close();
  mkdirSync(dirname(DOCUMENT_FILE), { recursive: true });
  writeFileSync(DOCUMENT_FILE, `${JSON.stringify(document, null, 2)}\n`);

  // defaultNonNullable off: a request field with a default may be left out (openapi-typescript would make it required).
  const header = '// Generated from the OpenAPI document by `npm run openapi:types`; do not edit.\n';
  const generated = await format(header + astToString(await openapiTS(document as never, { defaultNonNullable: false })), {
    parser: 'typescript',
    filepath: TYPES_FILE,
    ...prettierOptions(),
  });
  const committed = readOrEmpty(TYPES_FILE);
  if (generated === committed) return;
  if (write) {
    writeFileSync(TYPES_FILE, generated);
    console.log(`wrote ${relative(ROOT, TYPES_FILE)}`);
    return;
  }
  console.error(`${relative(ROOT, TYPES_FILE)} is not what the OpenAPI document generates: run \`npm run openapi:types\` and commit it`);
  process.exitCode = 1;
}

function prettierOptions(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ROOT, '.prettierrc'), 'utf8'));
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

main(process.argv.includes('--write')).catch((err) => {
  console.error(err);
  process.exit(1);
});
