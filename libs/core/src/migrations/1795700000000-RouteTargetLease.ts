import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A route is tied to the lease of the resource it reaches, and goes when the
 * lease does: a released address may be leased next to another project.
 * Existing routes are tied to the lease that holds their address now when it
 * is their own project's resource; a route to another project's resource
 * (what the rules before this allowed) is removed; a route whose address
 * nobody holds keeps a null lease.
 */
export class RouteTargetLease1795700000000 implements MigrationInterface {
  name = 'RouteTargetLease1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway_routes" ADD "target_lease" text`);
    await queryRunner.query(`
            UPDATE "gateway_routes" r SET "target_lease" = l."resource_id"
              FROM "address_leases" l
              LEFT JOIN "instances" i ON l."resource_kind" = 'instance' AND i."id"::text = l."resource_id"
              LEFT JOIN "managed_databases" d ON l."resource_kind" <> 'instance' AND d."engine" || '-' || d."id" = l."resource_id"
             WHERE l."address" = r."target_ip"::inet AND COALESCE(i."project_id", d."project_id") = r."project_id"
        `);
    await queryRunner.query(`
            DELETE FROM "gateway_routes" r USING "address_leases" l
             WHERE l."address" = r."target_ip"::inet AND r."target_lease" IS NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "gateway_routes"
            ADD CONSTRAINT "FK_8b8eb9adce598d9b5698b54341b" FOREIGN KEY ("target_lease") REFERENCES "address_leases"("resource_id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway_routes" DROP CONSTRAINT "FK_8b8eb9adce598d9b5698b54341b"`);
    await queryRunner.query(`ALTER TABLE "gateway_routes" DROP COLUMN "target_lease"`);
  }
}
