import 'reflect-metadata';
import { AppConfig } from '@stratus/core';
import { createApi } from './api.bootstrap';

async function main(): Promise<void> {
  const app = await createApi();
  const config = app.get(AppConfig);
  await app.listen(config.API_PORT, config.API_HOST);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
