import { MigrationInterface, QueryRunner } from 'typeorm';

/** A reset-password's new verifier waiting for the server to take it (managed_databases.password_pending). */
export class PasswordPending1796400000000 implements MigrationInterface {
  name = 'PasswordPending1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "managed_databases" ADD "password_pending" boolean NOT NULL DEFAULT false`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "managed_databases" DROP COLUMN "password_pending"`);
  }
}
