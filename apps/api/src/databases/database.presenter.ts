import { DatabaseEngine, ManagedDatabase } from '@stratus/core';

/** SPEC.md's create response of each collection, password aside. */
function fields(row: ManagedDatabase): Record<string, unknown> {
  const common = { id: row.id, name: row.name };
  const place = { status: row.status, floating_ip: row.floatingIp, port: row.port, created_at: row.createdAt.toISOString() };
  switch (row.engine) {
    case 'postgres':
      return { ...common, db_name: row.dbName, db_user: row.dbUser, db_version: row.version, ...place };
    case 'redis':
      return { ...common, version: row.version, ...place };
    case 'clickhouse':
      return { ...common, db_name: row.dbName, db_user: row.dbUser, ...place };
  }
}

/** Where each engine's create response carries the password. */
const PASSWORD_FIELD: Readonly<Record<DatabaseEngine, string>> = { postgres: 'db_password', redis: 'password', clickhouse: 'db_password' };

/** The create response: the only time the password leaves the API. */
export function presentCreated(row: ManagedDatabase, password: string): Record<string, unknown> {
  const body = fields(row);
  const entries = Object.entries(body);
  // The password sits where SPEC.md lists it: after the user (or the version, for the cache).
  const after = row.engine === 'redis' ? 'version' : 'db_user';
  const at = entries.findIndex(([k]) => k === after) + 1;
  entries.splice(at, 0, [PASSWORD_FIELD[row.engine], password]);
  return Object.fromEntries(entries);
}

/** List and get: the create body without the password, plus updated_at and status_reason (why it is in error). */
export function presentDatabase(row: ManagedDatabase): Record<string, unknown> {
  return { ...fields(row), updated_at: row.updatedAt.toISOString(), status_reason: row.statusReason };
}
