import { MigrationInterface, QueryRunner } from 'typeorm';

/** Clusters, the link of their member instances, and their events. */
export class Clusters1796200000000 implements MigrationInterface {
  name = 'Clusters1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "clusters" ("id" uuid NOT NULL DEFAULT uuid_generate_v4(), "project_id" uuid NOT NULL, "user_id" text NOT NULL, "name" text NOT NULL, "image_id" text NOT NULL, "flavor_id" text NOT NULL, "network_id" text NOT NULL, "subnet_id" text NOT NULL, "key_name" text NOT NULL, "port" integer NOT NULL, "dns_name" text NOT NULL, "user_data" text, "min_size" integer NOT NULL, "max_size" integer NOT NULL, "desired_size" integer NOT NULL, "scale_out_threshold" double precision NOT NULL, "scale_in_threshold" double precision NOT NULL, "status" text NOT NULL, "status_reason" text, "step" text, "address" inet, "generation" integer NOT NULL DEFAULT '1', "spec_generation" integer NOT NULL DEFAULT '1', "build_deadline" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_clusters_dns_name" UNIQUE ("dns_name"), CONSTRAINT "PK_clusters" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "clusters_project_page" ON "clusters" ("project_id", "created_at", "id")`);
    await queryRunner.query(`CREATE INDEX "clusters_project_status_page" ON "clusters" ("project_id", "status", "created_at", "id")`);
    await queryRunner.query(`CREATE INDEX "clusters_project_name_page" ON "clusters" ("project_id", "name", "created_at", "id")`);
    await queryRunner.query(
      `CREATE TABLE "cluster_members" ("instance_id" uuid NOT NULL, "cluster_id" uuid NOT NULL, "spec_generation" integer NOT NULL, "host" text, "health" text NOT NULL DEFAULT 'unknown', "health_since" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "joined_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cluster_members" PRIMARY KEY ("instance_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "cluster_members_cluster" ON "cluster_members" ("cluster_id", "created_at")`);
    await queryRunner.query(
      `ALTER TABLE "cluster_members" ADD CONSTRAINT "FK_cluster_members_instance" FOREIGN KEY ("instance_id") REFERENCES "instances"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_members" ADD CONSTRAINT "FK_cluster_members_cluster" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_events" ("id" BIGSERIAL NOT NULL, "cluster_id" uuid NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "kind" text NOT NULL, "reason" text NOT NULL, CONSTRAINT "PK_cluster_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "cluster_events_cluster" ON "cluster_events" ("cluster_id", "at")`);
    await queryRunner.query(
      `ALTER TABLE "cluster_events" ADD CONSTRAINT "FK_cluster_events_cluster" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "cluster_events"`);
    await queryRunner.query(`DROP TABLE "cluster_members"`);
    await queryRunner.query(`DROP TABLE "clusters"`);
  }
}
