import { MigrationInterface, QueryRunner } from 'typeorm';

/** `edge_nodes.workers` has counted HAProxy threads since the edge's Node workers went: named for it (EDGE_THREADS). */
export class EdgeThreads1795620300000 implements MigrationInterface {
  name = 'EdgeThreads1795620300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "edge_nodes" RENAME COLUMN "workers" TO "threads"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "edge_nodes" RENAME COLUMN "threads" TO "workers"`);
  }
}
