import { databaseServerKey, ManagedDatabase, PostgresExtension } from '@stratus/core';
import { DatabaseServerSpec, ObservedDatabaseServer } from '@stratus/providers';

/**
 * What the driver needs of a row, on the address the network gave it (and
 * its members' addresses, held by the row): ids, addresses and the verifier, never a password.
 */
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
    memberAddresses: row.ha ? row.memberAddresses : [],
  };
}

/** What an observation says of an ha database's members, as the row keeps it (unchanged: no write). */
export function memberFieldsOf(row: ManagedDatabase, observed: ObservedDatabaseServer | null): Pick<ManagedDatabase, 'members' | 'degraded'> | null {
  if (!row.ha || !observed?.members) return null;
  const fields = { members: observed.members, degraded: observed.degraded ?? false };
  return JSON.stringify(fields.members) === JSON.stringify(row.members) && fields.degraded === row.degraded ? null : fields;
}
