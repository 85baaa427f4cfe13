import './paths';
import { loadConfig, migrate, syncCatalog } from '@stratus/core';
import { LocalCatalog, LocalImages } from '@stratus/providers';
import { ALL_QUEUES, redisConnection } from '@stratus/queue';
import { killInstancesUnder, testEnv } from '@stratus/testing';
import { Queue } from 'bullmq';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/** A clean test installation: fresh database, empty queues, no instance left from an earlier run. */
export default async function globalSetup(): Promise<void> {
  const env = testEnv();
  const config = loadConfig(env);
  killInstancesUnder(join(config.DATA_DIR, 'instances'));
  rmSync(config.DATA_DIR, { recursive: true, force: true });

  const admin = new URL(config.DATABASE_URL);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();

  for (const queue of ALL_QUEUES) {
    const q = new Queue(queue, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
    await q.obliterate({ force: true });
    await q.close();
  }

  const dataSource = await migrate(config);
  const catalog = await new LocalCatalog(new LocalImages(), config.LOCAL_ADDRESS_POOL).catalog();
  await dataSource.transaction((m) => syncCatalog(m, catalog));
  await dataSource.destroy();
}
