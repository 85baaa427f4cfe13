import { MigrationInterface, QueryRunner } from 'typeorm';

/** High-availability databases: their members' addresses, the members as last observed, and the degraded sign. */
export class DatabaseMembers1796630000000 implements MigrationInterface {
  name = 'DatabaseMembers1796630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "managed_databases" ADD "member_addresses" text array NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "managed_databases" ADD "members" jsonb`);
    await queryRunner.query(`ALTER TABLE "managed_databases" ADD "degraded" boolean NOT NULL DEFAULT false`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "managed_databases" DROP COLUMN "degraded"`);
    await queryRunner.query(`ALTER TABLE "managed_databases" DROP COLUMN "members"`);
    await queryRunner.query(`ALTER TABLE "managed_databases" DROP COLUMN "member_addresses"`);
  }
}
