import { MigrationInterface, QueryRunner } from 'typeorm';

export class PlatformSurface1795318400969 implements MigrationInterface {
  name = 'PlatformSurface1795318400969';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "proxy_hosts" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "hostname" text NOT NULL,
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "instance_id" uuid NOT NULL,
                "forward_port" integer NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_27a110d1070188b8deb7df74db9" UNIQUE ("hostname"),
                CONSTRAINT "PK_dc0e3a4f5393a3c6c5142d1223e" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "proxy_hosts_instance" ON "proxy_hosts" ("instance_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "edge_nodes" (
                "name" text NOT NULL,
                "pid" integer NOT NULL,
                "workers" integer NOT NULL,
                "http_bound" boolean NOT NULL,
                "started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "heartbeat_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_52104d4cdb47b4172ac98c8738e" PRIMARY KEY ("name")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "certificates" (
                "id" SERIAL NOT NULL,
                "name" text NOT NULL,
                "cert_pem" text NOT NULL,
                "key_encrypted" text NOT NULL,
                "subject" text NOT NULL,
                "fingerprint_sha256" text NOT NULL,
                "not_after" TIMESTAMP WITH TIME ZONE NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_e4c7e31e2144300bea7d89eb165" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "gateway_routes" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "port" integer NOT NULL,
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "protocol" text NOT NULL DEFAULT 'tcp',
                "target_ip" text NOT NULL,
                "target_port" integer NOT NULL,
                "certificate_id" integer,
                "bound_at" TIMESTAMP WITH TIME ZONE,
                "bind_error" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_57774b39ddd542424b5d9186544" UNIQUE ("port"),
                CONSTRAINT "PK_471fd30508ec0d691e24597fde0" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "volumes" (
                "id" uuid NOT NULL DEFAULT uuid_generate_v4(),
                "project_id" uuid NOT NULL,
                "user_id" text NOT NULL,
                "name" text NOT NULL,
                "description" text,
                "size_gb" integer NOT NULL,
                "status" text NOT NULL,
                "status_reason" text,
                "instance_id" uuid,
                "attachment_id" uuid,
                "attached_at" TIMESTAMP WITH TIME ZONE,
                "generation" integer NOT NULL DEFAULT '1',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_19446fc1a1e45b530b6449dd068" UNIQUE ("attachment_id"),
                CONSTRAINT "PK_f3d03a6ad79006b028d3eae9e9f" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "volumes_status" ON "volumes" ("status")
        `);
    await queryRunner.query(`
            CREATE INDEX "volumes_instance" ON "volumes" ("instance_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "volumes_project_created" ON "volumes" ("project_id", "created_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "proxy_hosts"
            ADD CONSTRAINT "FK_0d2d24eb048684cb01d7ba911db" FOREIGN KEY ("instance_id") REFERENCES "instances"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "proxy_hosts" DROP CONSTRAINT "FK_0d2d24eb048684cb01d7ba911db"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."volumes_project_created"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."volumes_instance"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."volumes_status"
        `);
    await queryRunner.query(`
            DROP TABLE "volumes"
        `);
    await queryRunner.query(`
            DROP TABLE "gateway_routes"
        `);
    await queryRunner.query(`
            DROP TABLE "certificates"
        `);
    await queryRunner.query(`
            DROP TABLE "edge_nodes"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."proxy_hosts_instance"
        `);
    await queryRunner.query(`
            DROP TABLE "proxy_hosts"
        `);
  }
}
