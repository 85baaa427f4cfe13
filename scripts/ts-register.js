// Runs TypeScript sources in place (node -r ./scripts/ts-register.js x.ts),
// for steps that come before the build, such as the OpenAPI lint of
// `npm run lint`: swc strips the types file by file (no type check, which is
// tsc's job), with the decorator metadata Nest and the OpenAPI scanner read.
const { transformSync } = require('@swc/core');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

require('tsconfig-paths').register({
  baseUrl: join(__dirname, '..'),
  paths: {
    '@stratus/core': ['libs/core/src'],
    '@stratus/queue': ['libs/queue/src'],
    '@stratus/providers': ['libs/providers/src'],
    '@stratus/testing': ['libs/testing/src'],
  },
});

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
