import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { DatabaseStatus } from '../status/transitions';
import { DatabaseEngine } from './database-engines';

/** One server of a high-availability database, as the worker last observed it. */
export interface DatabaseMember {
  address: string;
  role: 'primary' | 'replica';
  health: 'up' | 'down';
  lag: { value: number; unit: 'bytes' | 'seconds' } | null;
}

/**
 * A managed database server of any engine: /v1/databases (postgres),
 * /v1/cache (redis), /v1/analytics (clickhouse) and
 * /v1/relational-databases (mariadb, mysql) are four views of this one table, which keeps ids numeric and shared logic in one place. Only the
 * engine's password verifier is stored, never the password.
 */
@Entity('managed_databases')
// Keyset pages of a project's list, unfiltered and by status or name (keyset-page.ts).
@Index('managed_databases_project_page', ['projectId', 'engine', 'createdAt', 'id'])
@Index('managed_databases_project_status_page', ['projectId', 'engine', 'status', 'createdAt', 'id'])
@Index('managed_databases_project_name_page', ['projectId', 'engine', 'name', 'createdAt', 'id'])
// What a reconcile sweep reads, a batch at a time in id order (live-batches.ts). No index of
// status alone: the planner would take it, and sort every live row for each batch.
@Index('managed_databases_live', ['id'], { where: `status IN ('provisioning', 'ready', 'deleting')` })
@Index('managed_databases_address', ['address'])
// A name is taken while its resource lives; one being deleted frees it.
@Index('managed_databases_live_name', ['projectId', 'engine', 'name'], { unique: true, where: `status <> 'deleting'` })
export class ManagedDatabase {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'text' })
  engine: DatabaseEngine;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  /** postgres, clickhouse, mariadb and mysql. */
  @Column({ name: 'db_name', type: 'text', nullable: true })
  dbName: string | null;

  /** postgres, clickhouse, mariadb and mysql; redis has the `default` user only. */
  @Column({ name: 'db_user', type: 'text', nullable: true })
  dbUser: string | null;

  /** Engine version asked for: postgres 16/15/14, redis 7/6, mariadb 10.11/11.4, mysql 8.0/8.4; null for clickhouse (the host's). */
  @Column({ type: 'text', nullable: true })
  version: string | null;

  /** PostgreSQL extensions, canonical names. */
  @Column({ type: 'text', array: true, default: '{}' })
  extensions: string[];

  @Column({ type: 'boolean', default: false })
  superuser: boolean;

  @Column({ type: 'boolean', default: false })
  ha: boolean;

  /**
   * The engine's own verifier of the password (engineVerifier): a PostgreSQL
   * SCRAM-SHA-256 verifier, the SHA-256 hex that Redis ACLs and ClickHouse
   * users take, or the mysql_native_password hash of MariaDB and MySQL.
   */
  @Column({ name: 'password_verifier', type: 'text' })
  passwordVerifier: string;

  /**
   * A reset-password stored a new verifier that the server does not hold
   * yet; the worker's database.rotate job clears it once the server does.
   */
  @Column({ name: 'password_pending', type: 'boolean', default: false })
  passwordPending: boolean;

  @Column({ name: 'flavor_id', type: 'text' })
  flavorId: string;

  @Column({ name: 'network_id', type: 'text' })
  networkId: string;

  @Column({ name: 'keypair_name', type: 'text' })
  keypairName: string;

  @Column({ name: 'security_group_ids', type: 'text', array: true })
  securityGroupIds: string[];

  /**
   * The server's address on the provider's network: null until the
   * worker's create job has it from the network driver, and again once a
   * delete gave it back. Published as floating_ip once it accepts connections.
   */
  @Column({ type: 'inet', nullable: true })
  address: string | null;

  @Column({ name: 'floating_ip', type: 'inet', nullable: true })
  floatingIp: string | null;

  /**
   * ha only: the members' addresses (three), from the network like
   * `address` (keys `<server key>-member-<n>`), which then is the
   * load-balancer listener in front of them. Empty otherwise.
   */
  @Column({ name: 'member_addresses', type: 'text', array: true, default: '{}' })
  memberAddresses: string[];

  /** ha only: the members as last observed (address, role, health, lag); null before the first observation. */
  @Column({ type: 'jsonb', nullable: true })
  members: DatabaseMember[] | null;

  /** ha only: a member was down while the address still served, at the last observation. */
  @Column({ type: 'boolean', default: false })
  degraded: boolean;

  @Column({ type: 'int' })
  port: number;

  @Column({ type: 'text' })
  status: DatabaseStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ type: 'int', default: 1 })
  generation: number;

  /** Still provisioning after this: failed by the reconciler. */
  @Column({ name: 'provision_deadline', type: 'timestamptz', nullable: true })
  provisionDeadline: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** Key of the server on the provider and of its address (the network driver's key). */
export function databaseServerKey(row: Pick<ManagedDatabase, 'engine' | 'id'>): string {
  return `${row.engine}-${row.id}`;
}

/** The network driver's key of an ha database's member `n` (0, 1, 2): derived from the server's own. */
export function databaseMemberKey(row: Pick<ManagedDatabase, 'engine' | 'id'>, n: number): string {
  return memberKeyOf(databaseServerKey(row), n);
}

/** Member `n`'s key from the database server's key: what a provider that has only the key names a member's port and server by. */
export function memberKeyOf(serverKey: string, n: number): string {
  return `${serverKey}-member-${n}`;
}

/** Members of a high-availability database: three servers, each of the row's flavor. */
export const HA_MEMBERS = 3;
