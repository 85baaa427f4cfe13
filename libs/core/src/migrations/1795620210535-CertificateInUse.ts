import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A certificate a route uses cannot be removed. Routes whose certificate is
 * already gone could not serve (the edge had nothing to load): removed first.
 */
export class CertificateInUse1795620210535 implements MigrationInterface {
  name = 'CertificateInUse1795620210535';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DELETE FROM "gateway_routes" r
            WHERE r."certificate_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "certificates" c WHERE c."id" = r."certificate_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "gateway_routes"
            ADD CONSTRAINT "FK_c79763d7def74938dfa3712633b" FOREIGN KEY ("certificate_id") REFERENCES "certificates"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "gateway_routes" DROP CONSTRAINT "FK_c79763d7def74938dfa3712633b"
        `);
  }
}
