// ESLint for the whole tree, run by `npm test` before the suites (`npm run lint`).
// TypeScript is checked with type information, so that the rules that need it
// (floating and misused promises) see what a call returns. Formatting is
// Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  [
    'require',
    'module',
    'exports',
    '__dirname',
    '__filename',
    'process',
    'console',
    'Buffer',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'URL',
    'fetch',
    'AbortSignal',
    'AbortController',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', '.packages/**', 'test-output/**'] },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The rules this config is for: a promise nobody awaits loses its
      // rejection, and one passed where a callback returns void is not awaited.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Unused code, imports included (an unused import is an unused variable
      // to typescript-eslint). `_name` marks an argument a signature needs.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Off: bodies of HTTP answers, JSON files and child-process messages are
      // `any` at the boundary, and the suites read them field by field; these
      // rules report every such read (over 1 300 places), which would drown the
      // findings above without making a wrong read less likely.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off: drivers implement interfaces whose methods return promises; an
      // implementation with nothing to await stays `async` so that what it
      // throws reaches the caller as a rejection, like the others'.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
