import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proxy hosts become load-balancer listeners with one backend, as gateway
 * routes did (RouteListeners): `host-<id>`, protocol http on the edge's
 * HTTP listener (EDGE_HTTP_HOST:EDGE_HTTP_PORT), the proxy host's name as
 * its one host, its instance's address and forward port as its backend.
 * The worker keeps them through the load-balancer driver; the edge reads
 * them from load_balancers instead of proxy_hosts and instances.
 *
 * `gateway` (which of the edge's HAProxy processes serves a listener)
 * becomes `router`: 'gateway' (a tcp listener on the gateway's ports),
 * 'hosts' (an http listener on the edge's HTTP listener, served by its
 * Host map) or 'balancer' (an HAProxy of its own address and port).
 *
 * Existing proxy hosts whose instance holds an address become their
 * listeners here, so an upgraded edge keeps serving them without waiting
 * for the worker; the worker's reconciler brings any listener to what its
 * proxy host asks for. `generation` numbers a proxy host's changes, so
 * each change is a job of its own.
 *
 * Every removal of a proxy host (the api's delete, the cascade from its
 * instance) writes the job that deletes its listener in the same
 * transaction: a trigger, since the cascade runs no application code. The
 * job id is the one libs/queue's resourceJobId gives 'host.delete'.
 */
export class HostListeners1795950000000 implements MigrationInterface {
  name = 'HostListeners1795950000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "load_balancers" ADD "router" text NOT NULL DEFAULT 'balancer'`);
    await queryRunner.query(`UPDATE "load_balancers" SET "router" = 'gateway' WHERE "gateway"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP COLUMN "gateway"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" ADD CONSTRAINT "CHK_load_balancers_router" CHECK ("router" IN ('gateway', 'hosts', 'balancer'))`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" ADD "generation" integer NOT NULL DEFAULT 1`);

    const host = process.env.EDGE_HTTP_HOST || '127.0.0.1';
    const port = Number(process.env.EDGE_HTTP_PORT ?? 8081);
    // EDGE_HTTP_PORT=0: the edge has no HTTP listener, so nothing to serve them on.
    if (port > 0) {
      await queryRunner.query(
        `INSERT INTO "load_balancers" ("id", "address", "port", "protocol", "hosts", "health_check", "router")
         SELECT 'host-' || p."id", $1::inet, $2, 'http', ARRAY[p."hostname"], '{"kind":"connect"}'::jsonb, 'hosts'
         FROM "proxy_hosts" p JOIN "instances" i ON i."id" = p."instance_id" WHERE i."address" IS NOT NULL
         ON CONFLICT ("id") DO NOTHING`,
        [host, port],
      );
      await queryRunner.query(
        `INSERT INTO "load_balancer_backends" ("listener_id", "address", "port", "state")
         SELECT 'host-' || p."id", i."address", p."forward_port", 'active'
         FROM "proxy_hosts" p JOIN "instances" i ON i."id" = p."instance_id" WHERE i."address" IS NOT NULL
         ON CONFLICT DO NOTHING`,
      );
    }
    await queryRunner.query(`
      CREATE FUNCTION "host_listener_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "outbox" ("job_name", "job_id", "payload")
        VALUES ('host.delete', 'host-delete-' || OLD."id" || '-g1', jsonb_build_object('proxyHostId', OLD."id"::text, 'generation', 1));
        RETURN OLD;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "proxy_hosts_listener_delete" AFTER DELETE ON "proxy_hosts" FOR EACH ROW EXECUTE FUNCTION "host_listener_delete"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "proxy_hosts_listener_delete" ON "proxy_hosts"`);
    await queryRunner.query(`DROP FUNCTION "host_listener_delete"()`);
    await queryRunner.query(`DELETE FROM "load_balancers" WHERE "router" = 'hosts'`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" DROP COLUMN "generation"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP CONSTRAINT "CHK_load_balancers_router"`);
    await queryRunner.query(`ALTER TABLE "load_balancers" ADD "gateway" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`UPDATE "load_balancers" SET "gateway" = true WHERE "router" = 'gateway'`);
    await queryRunner.query(`ALTER TABLE "load_balancers" DROP COLUMN "router"`);
  }
}
