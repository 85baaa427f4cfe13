import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the control plane stood still (work-clock.ts): a row for each gap
 * the work clock saw, so a wait measured from a time in the past (a rolling
 * update's new member and its health check) can leave them out, as the
 * build deadlines are moved on by them.
 */
export class WorkClockStandStills1797100000000 implements MigrationInterface {
  name = 'WorkClockStandStills1797100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "work_clock_stand_stills" ("started_at" timestamptz NOT NULL, "ended_at" timestamptz NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "work_clock_stand_stills_ended_at" ON "work_clock_stand_stills" ("ended_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "work_clock_stand_stills"`);
  }
}
