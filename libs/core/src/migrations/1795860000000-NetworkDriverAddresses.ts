import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Addresses come from the provider's network driver, assigned by the
 * worker's create job: a new instance or database row has none until then.
 *
 * A route was tied to its target by a foreign key to the local provider's
 * address lease, gone when the lease went. A cloud provider has no such
 * lease, so the route is tied to its target's record instead, by triggers
 * that do what the foreign key did:
 * - writing a route checks that its `target_lease` (the target's key: the
 *   instance id, or `<engine>-<id>`) is a live row that holds `target_ip`,
 *   locking that row as a foreign key check would; a failure is reported
 *   as the foreign key's violation, under its name, so callers that knew
 *   the foreign key still know this;
 * - deleting a target, or changing or taking away its address, deletes
 *   the routes that reach it in the same statement (as ON DELETE CASCADE
 *   did) and tells the edge (channel `stratus_edge`, as notifyEdge does).
 * The worker takes the address out of the row before its driver releases
 * it, so a released address never still has a route.
 */
export class NetworkDriverAddresses1795860000000 implements MigrationInterface {
  name = 'NetworkDriverAddresses1795860000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "instances" ALTER COLUMN "address" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "managed_databases" ALTER COLUMN "address" DROP NOT NULL`);
    // Who holds an address is read from the rows now (route targets).
    await queryRunner.query(`CREATE INDEX "instances_address" ON "instances" ("address") `);
    await queryRunner.query(`CREATE INDEX "managed_databases_address" ON "managed_databases" ("address") `);
    await queryRunner.query(`ALTER TABLE "gateway_routes" DROP CONSTRAINT "FK_8b8eb9adce598d9b5698b54341b"`);
    await queryRunner.query(`
      CREATE FUNCTION stratus_route_target_live() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.target_lease IS NULL THEN
          RETURN NEW;
        END IF;
        IF NEW.target_lease ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
          PERFORM 1 FROM instances
            WHERE id = NEW.target_lease::uuid AND address = NEW.target_ip::inet AND status <> 'DELETING' FOR SHARE;
        ELSE
          PERFORM 1 FROM managed_databases
            WHERE id = (regexp_match(NEW.target_lease, '-([0-9]{1,9})$'))[1]::int AND engine = split_part(NEW.target_lease, '-', 1)
              AND address = NEW.target_ip::inet AND status <> 'deleting' FOR SHARE;
        END IF;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'route target % does not hold %', NEW.target_lease, NEW.target_ip
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'FK_8b8eb9adce598d9b5698b54341b';
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER gateway_routes_target_live BEFORE INSERT OR UPDATE OF target_lease, target_ip ON gateway_routes
        FOR EACH ROW EXECUTE FUNCTION stratus_route_target_live()`);
    await queryRunner.query(`
      CREATE FUNCTION stratus_routes_follow_target() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        target text;
      BEGIN
        IF TG_TABLE_NAME = 'instances' THEN
          target := OLD.id::text;
        ELSE
          target := OLD.engine || '-' || OLD.id;
        END IF;
        DELETE FROM gateway_routes WHERE target_lease = target;
        IF FOUND THEN
          PERFORM pg_notify('stratus_edge', 'routes');
        END IF;
        RETURN NULL;
      END $$`);
    for (const table of ['instances', 'managed_databases']) {
      await queryRunner.query(`CREATE TRIGGER ${table}_routes_go AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION stratus_routes_follow_target()`);
      await queryRunner.query(
        `CREATE TRIGGER ${table}_routes_move AFTER UPDATE OF address ON ${table}
           FOR EACH ROW WHEN (OLD.address IS DISTINCT FROM NEW.address) EXECUTE FUNCTION stratus_routes_follow_target()`,
      );
    }
    await queryRunner.query(`CREATE INDEX "gateway_routes_target_lease" ON "gateway_routes" ("target_lease") `);
  }

  /** Needs every instance and database to hold an address again (as before, rows without one cannot go back). */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway_routes_target_lease"`);
    for (const table of ['instances', 'managed_databases']) {
      await queryRunner.query(`DROP TRIGGER ${table}_routes_move ON ${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_routes_go ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION stratus_routes_follow_target()`);
    await queryRunner.query(`DROP TRIGGER gateway_routes_target_live ON gateway_routes`);
    await queryRunner.query(`DROP FUNCTION stratus_route_target_live()`);
    // Routes whose target holds no lease (another provider's address) cannot keep the foreign key.
    await queryRunner.query(
      `DELETE FROM "gateway_routes" r WHERE r."target_lease" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "address_leases" l WHERE l."resource_id" = r."target_lease")`,
    );
    await queryRunner.query(
      `ALTER TABLE "gateway_routes" ADD CONSTRAINT "FK_8b8eb9adce598d9b5698b54341b" FOREIGN KEY ("target_lease") REFERENCES "address_leases"("resource_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`DROP INDEX "managed_databases_address"`);
    await queryRunner.query(`DROP INDEX "instances_address"`);
    await queryRunner.query(`ALTER TABLE "managed_databases" ALTER COLUMN "address" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "instances" ALTER COLUMN "address" SET NOT NULL`);
  }
}
