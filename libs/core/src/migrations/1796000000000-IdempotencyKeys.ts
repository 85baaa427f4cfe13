import { MigrationInterface, QueryRunner } from 'typeorm';

/** The `Idempotency-Key` of creates: one row per caller and key, kept until expires_at. */
export class IdempotencyKeys1796000000000 implements MigrationInterface {
  name = 'IdempotencyKeys1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("scope" text NOT NULL, "key" text NOT NULL, "fingerprint" text NOT NULL, "status_code" integer, "response" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_idempotency_keys" PRIMARY KEY ("scope", "key"))`,
    );
    await queryRunner.query(`CREATE INDEX "idempotency_keys_expires" ON "idempotency_keys" ("expires_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idempotency_keys_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
