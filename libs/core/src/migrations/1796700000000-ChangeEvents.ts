import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change trigger of each listed table (migration ListPages) writes an
 * event row instead of a NOTIFY. A transaction that NOTIFYs takes one lock
 * for the whole database at commit and holds it through its WAL flush, so
 * every write of those tables, from every project and process, committed
 * one at a time (16 writers committed fewer rows a second than one: see
 * bench/README.md, job-pipeline). An insert into an unlogged table costs
 * no lock and no WAL; the api's change feed reads the events of the
 * transactions that committed since it last looked (change-channel.ts).
 * Unlogged: what a crash of PostgreSQL drops is only wake-ups, and every
 * waiting poll looks again after the feed reconnects.
 */
export class ChangeEvents1796700000000 implements MigrationInterface {
  name = 'ChangeEvents1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "change_events" (
         "id" bigserial PRIMARY KEY,
         "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
         "table_name" text NOT NULL,
         "project_id" uuid NOT NULL,
         "at" timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    await queryRunner.query(`CREATE INDEX "change_events_xid" ON "change_events" ("xid")`);
    await queryRunner.query(`CREATE INDEX "change_events_at" ON "change_events" ("at")`);
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION "stratus_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO change_events (table_name, project_id) VALUES (TG_TABLE_NAME, COALESCE(NEW.project_id, OLD.project_id));
         RETURN NULL;
       END $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION "stratus_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('stratus_changes', TG_TABLE_NAME || ':' || COALESCE(NEW.project_id, OLD.project_id)::text);
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(`DROP TABLE "change_events"`);
  }
}
