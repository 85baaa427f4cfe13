import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateway routes become load-balancer listeners with one backend, which the
 * worker keeps through the load-balancer driver and the edge serves from
 * load_balancers. A listener on the gateway's ports is marked `gateway`
 * (the HAProxy holding the range serves it) and may name the certificate it
 * terminates TLS with; a listener goes with its certificate, which no route
 * can be using by then (gateway_routes restricts it).
 *
 * Existing routes become their listeners here, so an upgraded edge keeps
 * serving them without waiting for the worker: the address is this
 * process's GATEWAY_HOST, and the worker's reconciler brings any listener
 * to what its route asks for.
 *
 * Every removal of a route (the api's delete, a failed create, the cascade
 * from its target's lease) writes the job that deletes its listener in the
 * same transaction: a trigger, since the cascade runs no application code.
 * The job id is the one libs/queue's resourceJobId gives 'route.delete'.
 */
export class RouteListeners1795900000000 implements MigrationInterface {
  name = 'RouteListeners1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "load_balancers" ADD "gateway" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "load_balancers" ADD "certificate_id" integer`);
    await queryRunner.query(
      `ALTER TABLE "load_balancers" ADD CONSTRAINT "FK_load_balancers_certificate" FOREIGN KEY ("certificate_id") REFERENCES "certificates"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    const host = process.env.GATEWAY_HOST || '127.0.0.1';
    await queryRunner.query(
      `INSERT INTO "load_balancers" ("id", "address", "port", "protocol", "health_check", "gateway", "certificate_id")
       SELECT 'route-' || r."id", $1::inet, r."port", 'tcp', '{"kind":"connect"}'::jsonb, true, r."certificate_id" FROM "gateway_routes" r
       ON CONFLICT ("id") DO NOTHING`,
      [host],
    );
    await queryRunner.query(
      `INSERT INTO "load_balancer_backends" ("listener_id", "address", "port", "state")
       SELECT 'route-' || r."id", r."target_ip"::inet, r."target_port", 'active' FROM "gateway_routes" r
       ON CONFLICT DO NOTHING`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "route_listener_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "outbox" ("job_name", "job_id", "payload")
        VALUES ('route.delete', 'route-delete-' || OLD."id" || '-g1', jsonb_build_object('routeId', OLD."id"::text, 'generation', 1));
        RETURN OLD;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "gateway_routes_listener_delete" AFTER DELETE ON "gateway_routes" FOR EACH ROW EXECUTE FUNCTION "route_listener_delete"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "gateway_routes_listener_delete" ON "gateway_routes"`);
    await queryRunner.query(`DROP FUNCTION "route_listener_delete"()`);
    await queryRunner.query(`DELETE FROM "load_balancers" WHERE "gateway"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP CONSTRAINT "FK_load_balancers_certificate"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP COLUMN "certificate_id"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP COLUMN "gateway"`);
  }
}
