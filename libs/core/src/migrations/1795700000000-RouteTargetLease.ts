import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A route is tied to the lease of the resource it reaches, and goes when the
 * lease does: a released address may be leased next to another project.
 * Existing routes are tied to whichever lease holds their address now; a
 * route whose address nobody holds keeps a null lease.
 */
export class RouteTargetLease1795700000000 implements MigrationInterface {
    name = 'RouteTargetLease1795700000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "gateway_routes" ADD "target_lease" text`);
        await queryRunner.query(`
            UPDATE "gateway_routes" r SET "target_lease" = l."resource_id"
              FROM "address_leases" l WHERE l."address" = r."target_ip"::inet
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
