import { MigrationInterface, QueryRunner } from 'typeorm';

/** The edge's gateway HAProxy holds the whole port range: it says whether it does, and which ports something else held. */
export class GatewayHaproxy1795320000000 implements MigrationInterface {
  name = 'GatewayHaproxy1795320000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "edge_nodes" ADD "gateway_bound" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "edge_nodes" ADD "ports_taken" integer array NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "edge_nodes" DROP COLUMN "ports_taken"`);
    await queryRunner.query(`ALTER TABLE "edge_nodes" DROP COLUMN "gateway_bound"`);
  }
}
