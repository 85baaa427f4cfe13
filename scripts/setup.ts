import 'reflect-metadata';
import { bootstrapFirstProject, credentialsFile, firstProjectNotice, loadConfig } from '@stratus/core';
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
      if (created) console.log(firstProjectNotice(created, credentialsFile(config), process.stdout.isTTY === true));
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
