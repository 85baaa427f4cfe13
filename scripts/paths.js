// Resolves the @stratus/* libraries inside the compiled tree (dist/), for node -r.
const { join } = require('node:path');
require('tsconfig-paths').register({
  baseUrl: join(__dirname, '..', 'dist'),
  paths: {
    '@stratus/core': ['libs/core/src'],
    '@stratus/queue': ['libs/queue/src'],
    '@stratus/providers': ['libs/providers/src'],
    '@stratus/testing': ['libs/testing/src'],
  },
});
