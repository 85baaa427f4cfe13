import { loadConfig, ProviderName } from '@stratus/core';
import { existingInstallationId, hostNames, HostAccounts, installationCgroups, PacketFilter, prepareDatabase } from '@stratus/providers';
import { ALL_QUEUES, redisConnection } from '@stratus/queue';
import { Queue } from 'bullmq';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { killInstancesUnder, unmountUnder } from './processes';
import { killDatabaseServersUnder } from './databases';
import { testEnv } from './test-env';

/** Drops the database `databaseUrl` names, connections and all; one that is not there is fine. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const admin = new URL(databaseUrl);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * A clean test installation for this STRATUS_TEST_SLOT: no instance left from
 * an earlier run, an empty data folder, a fresh migrated database with the
 * local provider's catalog synced, and empty queues. The e2e global setup and
 * the benchmarks start from it; `overrides` name another one (its own
 * database, queue prefix and data folder), and `provider` the fake
 * provider's installation of the slot (see testEnv).
 */
export async function resetTestInstallation(overrides: Record<string, string> = {}, provider?: ProviderName): Promise<void> {
  const config = loadConfig(testEnv(overrides, provider));
  await stopInstallationAt(config.DATA_DIR);
  // The identity stays with the slot: its host accounts are reused rather than made anew by each run.
  const installation = existingInstallationId(config.DATA_DIR);
  rmSync(config.DATA_DIR, { recursive: true, force: true });
  if (installation) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(join(config.DATA_DIR, 'installation-id'), `${installation}\n`);
  }

  await dropDatabase(config.DATABASE_URL);

  for (const queue of ALL_QUEUES) {
    const q = new Queue(queue, { connection: redisConnection(config.REDIS_URL), prefix: config.QUEUE_PREFIX });
    await q.obliterate({ force: true });
    await q.close();
  }

  const db = await prepareDatabase(config);
  try {
    // The testbed is one OpenStack project for every slot, run and installation, and the provider finds a
    // database server by its key (`redis-25`): ids starting at 1 on every reset would meet another slot's
    // server of the same key, or one a stopped run left there, and take it for their own. Each reset
    // starts them elsewhere (README, OpenStack provider: an installation wants a project of its own).
    if (config.PROVIDER === 'openstack') await db.query(`SELECT setval(pg_get_serial_sequence('managed_databases', 'id'), $1)`, [randomInt(1_000_000, 2_000_000_000)]);
  } finally {
    await db.destroy();
  }
}

/** The packet-filter table of the installation in `dataDir`, which would outlive its data folder. */
export async function removePacketFilterOf(dataDir: string): Promise<void> {
  // Only an installation that has an identity has a table; asking for one would make one.
  const installation = existingInstallationId(dataDir);
  if (!installation) return;
  await new PacketFilter(hostNames.filterTable(installation)).remove();
}

/**
 * The host accounts (instance users, database user, instances group) and
 * cgroups of the installation in `dataDir` gone from the host, once nothing
 * of it runs: a test run leaves no users behind.
 */
export async function removeInstallationAccounts(dataDir: string): Promise<void> {
  const installation = existingInstallationId(dataDir);
  if (!installation) return;
  await new HostAccounts(installation).removeAll();
  installationCgroups(installation).removeParent();
}

/**
 * Nothing the installation in `dataDir` started runs on: its instances and
 * database servers (spares too) killed, its mounts undone, its packet
 * filter table gone. Its data and host accounts stay.
 */
export async function stopInstallationAt(dataDir: string): Promise<void> {
  await killInstancesUnder(join(dataDir, 'instances'));
  killDatabaseServersUnder(dataDir);
  unmountUnder(dataDir);
  await removePacketFilterOf(dataDir);
}

/** An installation a suite made does not outlive it: stopped, and its host accounts removed. */
export async function tearDownInstallationAt(dataDir: string): Promise<void> {
  await stopInstallationAt(dataDir);
  await removeInstallationAccounts(dataDir);
}
