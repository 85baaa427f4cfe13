import { MigrationInterface, QueryRunner } from 'typeorm';

/** Images a project owns (snapshots of its instances) beside the provider's public ones. */
export class ProjectImages1796100000000 implements MigrationInterface {
  name = 'ProjectImages1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "images" ADD "project_id" uuid`);
    await queryRunner.query(`CREATE INDEX "images_project" ON "images" ("project_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."images_project"`);
    await queryRunner.query(`ALTER TABLE "images" DROP COLUMN "project_id"`);
  }
}
