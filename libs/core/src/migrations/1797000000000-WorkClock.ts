import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the control plane last did work (work-clock.ts): one row, moved on
 * by every worker a few seconds apart, so a long gap tells how long the
 * control plane stood still, and the build deadlines are moved on by it.
 */
export class WorkClock1797000000000 implements MigrationInterface {
  name = 'WorkClock1797000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "work_clock" ("one" boolean PRIMARY KEY DEFAULT true CHECK ("one"), "at" timestamptz NOT NULL DEFAULT now())`);
    await queryRunner.query(`INSERT INTO "work_clock" DEFAULT VALUES`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "work_clock"`);
  }
}
