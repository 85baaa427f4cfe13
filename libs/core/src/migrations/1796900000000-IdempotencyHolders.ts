import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which request holds an `Idempotency-Key`'s claim: a retry that takes a
 * stale claim over becomes its holder, and the create of the request it
 * took it from can no longer commit under it (IdempotentCommits).
 */
export class IdempotencyHolders1796900000000 implements MigrationInterface {
  name = 'IdempotencyHolders1796900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "holder" uuid`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "holder"`);
  }
}
