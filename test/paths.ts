// Jest's globalSetup and globalTeardown load outside jest's module map: point
// the @stratus/* aliases at the sources for them.
import { join } from 'node:path';
import { register } from 'tsconfig-paths';

register({
  baseUrl: join(__dirname, '..'),
  paths: { '@stratus/*': ['libs/*/src'] },
});
