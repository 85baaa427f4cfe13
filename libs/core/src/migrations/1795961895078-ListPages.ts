import { MigrationInterface, QueryRunner } from 'typeorm';

const PAGE_INDEXES: Array<[name: string, table: string, columns: string, where?: string]> = [
  ['instances_project_page', 'instances', '"project_id", "created_at", "id"'],
  ['instances_project_status_page', 'instances', '"project_id", "status", "created_at", "id"'],
  ['instances_project_name_page', 'instances', '"project_id", "name", "created_at", "id"'],
  ['managed_databases_project_page', 'managed_databases', '"project_id", "engine", "created_at", "id"'],
  ['managed_databases_project_status_page', 'managed_databases', '"project_id", "engine", "status", "created_at", "id"'],
  ['managed_databases_project_name_page', 'managed_databases', '"project_id", "engine", "name", "created_at", "id"'],
  ['volumes_project_page', 'volumes', '"project_id", "created_at", "id"'],
  ['volumes_project_status_page', 'volumes', '"project_id", "status", "created_at", "id"'],
  ['volumes_project_name_page', 'volumes', '"project_id", "name", "created_at", "id"'],
  ['proxy_hosts_project_page', 'proxy_hosts', '"project_id", "created_at", "id"'],
  ['proxy_hosts_page', 'proxy_hosts', '"created_at", "id"'],
  // What a reconcile sweep reads, a batch at a time in id order.
  ['instances_live', 'instances', '"id"', `status IN ('BUILD', 'ACTIVE', 'SHUTOFF', 'DELETING')`],
  ['managed_databases_live', 'managed_databases', '"id"', `status IN ('provisioning', 'ready', 'deleting')`],
];

/**
 * Indexes the page and live ones replace: (project, created_at) could not
 * start a page at a key; with one of status alone the planner read every
 * live row and sorted them for each batch of a sweep.
 */
const REPLACED: Array<[name: string, table: string, columns: string]> = [
  ['instances_status', 'instances', '"status"'],
  ['managed_databases_status', 'managed_databases', '"status"'],
  ['instances_project_created', 'instances', '"project_id", "created_at"'],
  ['managed_databases_project_engine', 'managed_databases', '"project_id", "engine", "created_at"'],
  ['volumes_project_created', 'volumes', '"project_id", "created_at"'],
];

const WATCHED = ['instances', 'managed_databases', 'volumes', 'proxy_hosts'];

/**
 * Keyset pages of every list (by status and name too), batches of live
 * rows for the reconcilers, and a NOTIFY on
 * `stratus_changes` for each row written to a listed table, which wakes the
 * long polls waiting on that table and project (change-channel.ts). A row
 * trigger, so whatever writes the row (api, worker, an operator's psql) is
 * heard; PostgreSQL folds repeats of one payload within a transaction.
 */
export class ListPages1795961895078 implements MigrationInterface {
  name = 'ListPages1795961895078';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of REPLACED) await queryRunner.query(`DROP INDEX "public"."${name}"`);
    for (const [name, table, columns, where] of PAGE_INDEXES) {
      await queryRunner.query(`CREATE INDEX "${name}" ON "${table}" (${columns})${where ? ` WHERE ${where}` : ''}`);
    }
    await queryRunner.query(
      `CREATE FUNCTION "stratus_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('stratus_changes', TG_TABLE_NAME || ':' || COALESCE(NEW.project_id, OLD.project_id)::text);
         RETURN NULL;
       END $$`,
    );
    for (const table of WATCHED) {
      await queryRunner.query(`CREATE TRIGGER "${table}_changes" AFTER INSERT OR UPDATE OR DELETE ON "${table}" FOR EACH ROW EXECUTE FUNCTION "stratus_notify_change"()`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of WATCHED) await queryRunner.query(`DROP TRIGGER "${table}_changes" ON "${table}"`);
    await queryRunner.query(`DROP FUNCTION "stratus_notify_change"()`);
    for (const [name] of PAGE_INDEXES) await queryRunner.query(`DROP INDEX "public"."${name}"`);
    for (const [name, table, columns] of REPLACED) await queryRunner.query(`CREATE INDEX "${name}" ON "${table}" (${columns})`);
  }
}
