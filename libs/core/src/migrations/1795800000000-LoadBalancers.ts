import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The local provider's load balancers: the worker's driver writes listeners
 * and backends, the edge serves them and writes back what it sees.
 */
export class LoadBalancers1795800000000 implements MigrationInterface {
  name = 'LoadBalancers1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "load_balancers" ("id" text NOT NULL, "address" inet NOT NULL, "port" integer NOT NULL, "protocol" text NOT NULL, "hosts" text array NOT NULL DEFAULT '{}', "health_check" jsonb NOT NULL, "bound_at" TIMESTAMP WITH TIME ZONE, "bind_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_load_balancers" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "load_balancer_backends" ("listener_id" text NOT NULL, "address" inet NOT NULL, "port" integer NOT NULL, "state" text NOT NULL DEFAULT 'active', "health" text NOT NULL DEFAULT 'unknown', "connections" integer NOT NULL DEFAULT '0', "observed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_load_balancer_backends" PRIMARY KEY ("listener_id", "address", "port"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "load_balancer_backends" ADD CONSTRAINT "FK_load_balancer_backends_listener" FOREIGN KEY ("listener_id") REFERENCES "load_balancers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "load_balancer_backends"`);
    await queryRunner.query(`DROP TABLE "load_balancers"`);
  }
}
