import { MigrationInterface, QueryRunner } from 'typeorm';

/** Projects' own quota limits, and the rank (BullMQ priority) an outbox job is queued with. */
export class ProjectQuotas1796300000000 implements MigrationInterface {
  name = 'ProjectQuotas1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "project_quotas" ("project_id" uuid NOT NULL, "quota" text NOT NULL, "limit" integer NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_project_quotas" PRIMARY KEY ("project_id", "quota"))`,
    );
    await queryRunner.query(`ALTER TABLE "outbox" ADD "priority" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox" DROP COLUMN "priority"`);
    await queryRunner.query(`DROP TABLE "project_quotas"`);
  }
}
