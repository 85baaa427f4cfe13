import { existingInstallationId, HostAccounts } from '@stratus/providers';
import { databaseServersUnder, instanceLeadersUnder, providerUnderTest, testEnv } from '@stratus/testing';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The e2e-fake project's promise: its suites made instances, volumes and
 * database servers that moved through their statuses, and not one process or
 * host resource. Checked after every suite of the project, on its own
 * installation (no other suite shares it): no instance process group or
 * database server of the installation runs, no instance user of it exists,
 * and the folders the local provider lays out for instances, volumes and
 * servers were never made.
 */
afterAll(() => {
  if (providerUnderTest() !== 'fake') throw new Error('fake-provider.after-env.ts runs only in the e2e-fake project');
  const dataDir = testEnv().DATA_DIR;
  const made = (name: string) => (existsSync(join(dataDir, name)) ? readdirSync(join(dataDir, name)) : []);
  const installation = existingInstallationId(dataDir);
  expect({
    instanceProcesses: [...instanceLeadersUnder(join(dataDir, 'instances')).keys()],
    databaseServers: [...databaseServersUnder(dataDir).keys()],
    instanceUsers: installation ? new HostAccounts(installation).instanceUserNames() : [],
    instanceFolders: made('instances'),
    volumeFolders: made('volumes'),
    databaseFolders: made('databases'),
  }).toEqual({ instanceProcesses: [], databaseServers: [], instanceUsers: [], instanceFolders: [], volumeFolders: [], databaseFolders: [] });
});
