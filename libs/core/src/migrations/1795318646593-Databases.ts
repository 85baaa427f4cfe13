import { MigrationInterface, QueryRunner } from 'typeorm';

export class Databases1795318646593 implements MigrationInterface {
  name = 'Databases1795318646593';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "managed_databases" (
                "id" SERIAL NOT NULL,
                "engine" text NOT NULL,
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "name" text NOT NULL,
                "db_name" text,
                "db_user" text,
                "version" text,
                "extensions" text array NOT NULL DEFAULT '{}',
                "superuser" boolean NOT NULL DEFAULT false,
                "ha" boolean NOT NULL DEFAULT false,
                "password_verifier" text NOT NULL,
                "flavor_id" text NOT NULL,
                "network_id" text NOT NULL,
                "keypair_name" text NOT NULL,
                "security_group_ids" text array NOT NULL,
                "address" inet NOT NULL,
                "floating_ip" inet,
                "port" integer NOT NULL,
                "status" text NOT NULL,
                "status_reason" text,
                "generation" integer NOT NULL DEFAULT '1',
                "provision_deadline" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_df1e782dadc4bc71f41507ed6d3" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "managed_databases_live_name" ON "managed_databases" ("project_id", "engine", "name")
            WHERE status <> 'deleting'
        `);
    await queryRunner.query(`
            CREATE INDEX "managed_databases_status" ON "managed_databases" ("status")
        `);
    await queryRunner.query(`
            CREATE INDEX "managed_databases_project_engine" ON "managed_databases" ("project_id", "engine", "created_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."managed_databases_project_engine"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."managed_databases_status"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."managed_databases_live_name"
        `);
    await queryRunner.query(`
            DROP TABLE "managed_databases"
        `);
  }
}
