import { databaseServerKey, ManagedDatabase, PostgresExtension } from '@stratus/core';
import { DatabaseServerSpec } from '@stratus/providers';

/** What the driver needs of a row, on the address the network gave it: ids, addresses and the verifier, never a password. */
export function serverSpecOf(row: ManagedDatabase, address: string): DatabaseServerSpec {
  return {
    key: databaseServerKey(row),
    engine: row.engine,
    version: row.version,
    address,
    port: row.port,
    dbName: row.dbName,
    dbUser: row.dbUser,
    passwordVerifier: row.passwordVerifier,
    superuser: row.superuser,
    extensions: row.extensions as PostgresExtension[],
    ha: row.ha,
  };
}
