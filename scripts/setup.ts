import 'reflect-metadata';
import { bootstrapFirstProject, loadConfig } from '@stratus/core';
import { prepareDatabase } from '@stratus/providers';

/**
 * Everything `npm start` and the test suite need before the processes start:
 * database, migrations, the provider catalog, and the first project.
 */
export async function setup(opts: { bootstrap: boolean }): Promise<void> {
  const config = loadConfig();
  const dataSource = await prepareDatabase(config);
  try {
    if (opts.bootstrap) {
      const created = await bootstrapFirstProject(dataSource, config);
      if (created) {
        console.log('\nFirst project created. These credentials are shown once and kept in');
        console.log(`${config.DATA_DIR}/credentials.json (mode 0600):\n`);
        console.log(`  project:      ${created.project_name} (${created.project_id})`);
        console.log(`  x-api-key:    ${created.api_key}`);
        console.log(`  Bearer token: ${created.bearer_token}`);
        if (created.operator_password) console.log(`  queue dashboard: user operator, password ${created.operator_password}`);
        console.log('');
      }
    }
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  setup({ bootstrap: !process.argv.includes('--no-bootstrap') }).catch((err) => {
    console.error(`setup failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
}
