import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { DATABASE_STATUSES, DatabaseStatus, HA_MEMBERS, ManagedDatabase, RELATIONAL_ENGINES, RelationalEngine } from '@stratus/core';

/*
 * The bodies of /v1/databases, /v1/cache, /v1/analytics and /v1/relational-databases. Each class is the
 * shape its presenter returns (the presenters are typed with them, so the two
 * cannot part) and what the OpenAPI document shows; fields are in the order
 * SPEC.md lists them.
 */

/** Fields every kind shows. */
class ManagedServerView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: DATABASE_STATUSES, description: 'provisioning, then ready or error; deleting once a delete has started' })
  status: DatabaseStatus;

  @ApiProperty({ type: String, nullable: true, description: 'null until assigned' })
  floating_ip: string | null;

  @ApiProperty({ description: 'PostgreSQL 5432, Redis 6379, ClickHouse (HTTP) 8123, MariaDB and MySQL 3306' })
  port: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** List and get add these to the create fields (and leave the password out). */
function Listed<T extends Type<ManagedServerView>>(Base: T) {
  class ListedView extends Base {
    @ApiProperty({ format: 'date-time' })
    updated_at: string;

    @ApiProperty({ type: String, nullable: true, description: 'why the server is in error' })
    status_reason: string | null;
  }
  return ListedView;
}

class MemberLagView {
  @ApiProperty()
  value: number;

  @ApiProperty({ enum: ['bytes', 'seconds'] })
  unit: 'bytes' | 'seconds';
}

class MemberView {
  @ApiProperty()
  address: string;

  @ApiProperty({ enum: ['primary', 'replica'] })
  role: 'primary' | 'replica';

  @ApiProperty({ enum: ['up', 'down'] })
  health: 'up' | 'down';

  @ApiProperty({ type: MemberLagView, nullable: true, description: 'replication lag behind the primary, where the engine tells it; null for the primary' })
  lag: MemberLagView | null;
}

class FootprintView {
  @ApiProperty({ description: 'servers the database runs on (3)' })
  servers: number;

  @ApiProperty({ description: 'the flavor of each of them' })
  flavor_id: string;
}

/** What list and get add for a database with ha (absent without): what it costs, and its members. */
function WithHa<T extends Type<ManagedServerView>>(Base: T) {
  class HaView extends Base {
    @ApiProperty({ required: false, description: 'present (true) only on a database created with ha' })
    ha?: boolean;

    @ApiProperty({ type: FootprintView, required: false, description: 'ha only: the servers it runs on, each of its flavor' })
    footprint?: FootprintView;

    @ApiProperty({ type: [MemberView], required: false, description: 'ha only: each member as last observed (empty until the first observation)' })
    members?: MemberView[];

    @ApiProperty({
      required: false,
      description: 'ha only: the address serves, but the database is not whole: a member is down, or (PostgreSQL) a replica does not stream or no synchronous standby is in sync',
    })
    degraded?: boolean;
  }
  return HaView;
}

class PostgresFields extends ManagedServerView {
  @ApiProperty()
  db_name: string;

  @ApiProperty()
  db_user: string;

  @ApiProperty({ enum: ['16', '15', '14'] })
  db_version: string;
}

export class PostgresCreatedView extends PostgresFields {
  @ApiProperty({ description: 'plaintext, in this answer only' })
  db_password: string;
}

export class PostgresView extends WithHa(Listed(PostgresFields)) {}

class CacheFields extends ManagedServerView {
  @ApiProperty({ enum: ['7', '6'] })
  version: string;
}

export class CacheCreatedView extends CacheFields {
  @ApiProperty({ description: 'plaintext, in this answer only' })
  password: string;
}

export class CacheView extends Listed(CacheFields) {}

class AnalyticsFields extends ManagedServerView {
  @ApiProperty()
  db_name: string;

  @ApiProperty()
  db_user: string;
}

export class AnalyticsCreatedView extends AnalyticsFields {
  @ApiProperty({ description: 'plaintext, in this answer only' })
  db_password: string;
}

export class AnalyticsView extends WithHa(Listed(AnalyticsFields)) {}

/** /v1/databases' fields, with the engine: a client that knows one collection knows the other. */
class RelationalFields extends ManagedServerView {
  @ApiProperty({ enum: RELATIONAL_ENGINES })
  engine: RelationalEngine;

  @ApiProperty()
  db_name: string;

  @ApiProperty()
  db_user: string;

  @ApiProperty({ description: 'mariadb 10.11 or 11.4, mysql 8.0 or 8.4' })
  db_version: string;
}

export class RelationalCreatedView extends RelationalFields {
  @ApiProperty({ description: 'plaintext, in this answer only' })
  db_password: string;
}

export class RelationalView extends Listed(RelationalFields) {}

export type ManagedCreatedView = PostgresCreatedView | CacheCreatedView | AnalyticsCreatedView | RelationalCreatedView;
export type ManagedView = PostgresView | CacheView | AnalyticsView | RelationalView;

function place(row: ManagedDatabase) {
  return { status: row.status, floating_ip: row.floatingIp, port: row.port, created_at: row.createdAt.toISOString() };
}

// db_name, db_user and version are nullable columns because not every engine
// has them; the create of an engine that has them always sets them.
const text = (value: string | null): string => value as string;

/** The create response: the only time the password leaves the API; it sits where SPEC.md lists it. */
export function presentCreated(row: ManagedDatabase, password: string): ManagedCreatedView {
  const common = { id: row.id, name: row.name };
  switch (row.engine) {
    case 'postgres':
      return { ...common, db_name: text(row.dbName), db_user: text(row.dbUser), db_password: password, db_version: text(row.version), ...place(row) };
    case 'redis':
      return { ...common, version: text(row.version), password, ...place(row) };
    case 'clickhouse':
      return { ...common, db_name: text(row.dbName), db_user: text(row.dbUser), db_password: password, ...place(row) };
    case 'mariadb':
    case 'mysql':
      return {
        ...common,
        engine: row.engine,
        db_name: text(row.dbName),
        db_user: text(row.dbUser),
        db_password: password,
        db_version: text(row.version),
        ...place(row),
      };
  }
}

/** With ha: the footprint (three servers of the flavor), and the members as the worker last observed them; nothing without. */
function haFields(row: ManagedDatabase) {
  if (!row.ha) return {};
  const members = (row.members ?? []).map((m) => ({ address: m.address, role: m.role, health: m.health, lag: m.lag }));
  return { ha: true, footprint: { servers: HA_MEMBERS, flavor_id: row.flavorId }, members, degraded: row.degraded };
}

/** List and get: the create body without the password, plus updated_at and status_reason (why it is in error). */
export function presentDatabase(row: ManagedDatabase): ManagedView {
  const common = { id: row.id, name: row.name };
  const listed = { updated_at: row.updatedAt.toISOString(), status_reason: row.statusReason };
  switch (row.engine) {
    case 'postgres':
      return { ...common, db_name: text(row.dbName), db_user: text(row.dbUser), db_version: text(row.version), ...place(row), ...listed, ...haFields(row) };
    case 'redis':
      return { ...common, version: text(row.version), ...place(row), ...listed };
    case 'clickhouse':
      return { ...common, db_name: text(row.dbName), db_user: text(row.dbUser), ...place(row), ...listed, ...haFields(row) };
    case 'mariadb':
    case 'mysql':
      return { ...common, engine: row.engine, db_name: text(row.dbName), db_user: text(row.dbUser), db_version: text(row.version), ...place(row), ...listed };
  }
}
