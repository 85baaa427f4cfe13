import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1795316831917 implements MigrationInterface {
  name = 'Init1795316831917';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "address_leases" (
                "address" inet NOT NULL,
                "resource_kind" text NOT NULL,
                "resource_id" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_b41277d98f36380853312225a48" UNIQUE ("resource_id"),
                CONSTRAINT "PK_0b77facea5c03f647ba4a93548d" PRIMARY KEY ("address")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "flavors" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "vcpus" integer NOT NULL,
                "ram_mb" integer NOT NULL,
                "disk_gb" integer NOT NULL,
                CONSTRAINT "UQ_8297edd7c37e51ab4a4bd8bcbfe" UNIQUE ("name"),
                CONSTRAINT "PK_167d84f2986107e162f56a7ca79" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "images" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "description" text NOT NULL DEFAULT '',
                CONSTRAINT "PK_1fe148074c6a1a91b63cb9ee3c9" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "networks" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "cidr" cidr NOT NULL,
                CONSTRAINT "PK_61b1ee921bf79550d9d4742b9f7" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "keypairs" (
                "name" text NOT NULL,
                "fingerprint" text NOT NULL,
                CONSTRAINT "PK_f044e7c0fd50aa3470b2de76360" PRIMARY KEY ("name")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "security_groups" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "description" text NOT NULL DEFAULT '',
                "rules" jsonb NOT NULL,
                CONSTRAINT "UQ_b6fef959698f9ba142f8e41a0c8" UNIQUE ("name"),
                CONSTRAINT "PK_cbb56a293f1124a728f62319cf4" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "instances" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "name" text NOT NULL,
                "image_id" text NOT NULL,
                "image_name" text,
                "flavor_id" text NOT NULL,
                "network_id" text NOT NULL,
                "keypair_name" text NOT NULL,
                "security_group_ids" text array NOT NULL,
                "port" integer NOT NULL DEFAULT '3000',
                "dname" text,
                "user_data" text,
                "address" inet NOT NULL,
                "status" text NOT NULL,
                "status_reason" text,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "generation" integer NOT NULL DEFAULT '1',
                "build_deadline" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_11862209053330b4765f7f54178" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "instances_status" ON "instances" ("status")
        `);
    await queryRunner.query(`
            CREATE INDEX "instances_project_created" ON "instances" ("project_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "outbox" (
                "id" BIGSERIAL NOT NULL,
                "job_name" text NOT NULL,
                "job_id" text NOT NULL,
                "payload" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "dispatched_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "outbox_pending" ON "outbox" ("created_at")
            WHERE dispatched_at IS NULL
        `);
    await queryRunner.query(`
            CREATE TABLE "api_keys" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "key_id" text NOT NULL,
                "secret_hash" text NOT NULL,
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "label" text NOT NULL DEFAULT '',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_587c54d5d82b3dfbfb59a81cb4" ON "api_keys" ("key_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "projects" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "name" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_2187088ab5ef2a918473cb99007" UNIQUE ("name"),
                CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id")
            )
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP TABLE "projects"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_587c54d5d82b3dfbfb59a81cb4"
        `);
    await queryRunner.query(`
            DROP TABLE "api_keys"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."outbox_pending"
        `);
    await queryRunner.query(`
            DROP TABLE "outbox"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."instances_project_created"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."instances_status"
        `);
    await queryRunner.query(`
            DROP TABLE "instances"
        `);
    await queryRunner.query(`
            DROP TABLE "security_groups"
        `);
    await queryRunner.query(`
            DROP TABLE "keypairs"
        `);
    await queryRunner.query(`
            DROP TABLE "networks"
        `);
    await queryRunner.query(`
            DROP TABLE "images"
        `);
    await queryRunner.query(`
            DROP TABLE "flavors"
        `);
    await queryRunner.query(`
            DROP TABLE "address_leases"
        `);
  }
}
