import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cluster made from a running instance (POST /v1/clusters/from-instance).
 *
 * `clusters.source_instance_id`: the instance it was made from, its first
 * member (no foreign key: the cluster outlives it when it is replaced).
 *
 * The instance's URL moves to the cluster's balancer, so it outlives the
 * instance too:
 * - a proxy host belongs to an instance or to a cluster, never both nor
 *   neither: `cluster_id` (gone with the cluster) or `instance_id` (gone with
 *   the instance, as before);
 * - a gateway route may reach a cluster: its `target_lease` is then the key
 *   of the cluster's address (`cluster-<id>`, what the network driver leased
 *   it under), checked against the cluster row as an instance's is, and the
 *   route goes when the cluster goes or its address changes.
 */
export class ClusterFromInstance1796610000000 implements MigrationInterface {
  name = 'ClusterFromInstance1796610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "clusters" ADD "source_instance_id" uuid`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" ADD "cluster_id" uuid`);
    await queryRunner.query(
      `ALTER TABLE "proxy_hosts" ADD CONSTRAINT "FK_proxy_hosts_cluster" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`CREATE INDEX "proxy_hosts_cluster" ON "proxy_hosts" ("cluster_id") `);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" ALTER COLUMN "instance_id" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" ADD CONSTRAINT "CHK_proxy_hosts_one_target" CHECK (("instance_id" IS NULL) <> ("cluster_id" IS NULL))`);
    await queryRunner.query(ROUTE_TARGET_LIVE(true));
    await queryRunner.query(`
      CREATE FUNCTION stratus_routes_follow_cluster() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM gateway_routes WHERE target_lease = 'cluster-' || OLD.id;
        IF FOUND THEN
          PERFORM pg_notify('stratus_edge', 'routes');
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER clusters_routes_go AFTER DELETE ON clusters FOR EACH ROW EXECUTE FUNCTION stratus_routes_follow_cluster()`);
    await queryRunner.query(
      `CREATE TRIGGER clusters_routes_move AFTER UPDATE OF address ON clusters
         FOR EACH ROW WHEN (OLD.address IS DISTINCT FROM NEW.address) EXECUTE FUNCTION stratus_routes_follow_cluster()`,
    );
  }

  /** Proxy hosts and routes that reach a cluster go (they have no instance to go back to). */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER clusters_routes_move ON clusters`);
    await queryRunner.query(`DROP TRIGGER clusters_routes_go ON clusters`);
    await queryRunner.query(`DROP FUNCTION stratus_routes_follow_cluster()`);
    await queryRunner.query(`DELETE FROM gateway_routes WHERE target_lease LIKE 'cluster-%'`);
    await queryRunner.query(ROUTE_TARGET_LIVE(false));
    await queryRunner.query(`DELETE FROM "proxy_hosts" WHERE "instance_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" DROP CONSTRAINT "CHK_proxy_hosts_one_target"`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" ALTER COLUMN "instance_id" SET NOT NULL`);
    await queryRunner.query(`DROP INDEX "proxy_hosts_cluster"`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" DROP CONSTRAINT "FK_proxy_hosts_cluster"`);
    await queryRunner.query(`ALTER TABLE "proxy_hosts" DROP COLUMN "cluster_id"`);
    await queryRunner.query(`ALTER TABLE "clusters" DROP COLUMN "source_instance_id"`);
  }
}

/** The check of a route's target (migration NetworkDriverAddresses), with or without clusters as targets. */
function ROUTE_TARGET_LIVE(clusters: boolean): string {
  const cluster = clusters
    ? `ELSIF NEW.target_lease ~ '^cluster-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
          PERFORM 1 FROM clusters
            WHERE id = substr(NEW.target_lease, 9)::uuid AND address = NEW.target_ip::inet AND status <> 'DELETE_IN_PROGRESS' FOR SHARE;`
    : '';
  return `
      CREATE OR REPLACE FUNCTION stratus_route_target_live() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.target_lease IS NULL THEN
          RETURN NEW;
        END IF;
        IF NEW.target_lease ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
          PERFORM 1 FROM instances
            WHERE id = NEW.target_lease::uuid AND address = NEW.target_ip::inet AND status <> 'DELETING' FOR SHARE;
        ${cluster}
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
      END $$`;
}
