import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the create that holds an `Idempotency-Key` committed, written in
 * the create's own transaction (IdempotentCommits): a claim whose create
 * committed is never run again, even if its process died before keeping
 * the answer.
 */
export class IdempotencyCommits1796800000000 implements MigrationInterface {
  name = 'IdempotencyCommits1796800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "committed_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "committed_at"`);
  }
}
