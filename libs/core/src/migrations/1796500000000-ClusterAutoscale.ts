import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Autoscaling state kept in the database, so a worker restart or a second
 * worker goes on from the same window: each member's last CPU reading and
 * its recent samples (cluster_members.cpu), and when the cluster last scaled
 * (clusters.last_scaled_at, the cooldown's start).
 */
export class ClusterAutoscale1796500000000 implements MigrationInterface {
  name = 'ClusterAutoscale1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cluster_members" ADD "cpu" jsonb`);
    await queryRunner.query(`ALTER TABLE "clusters" ADD "last_scaled_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "clusters" DROP COLUMN "last_scaled_at"`);
    await queryRunner.query(`ALTER TABLE "cluster_members" DROP COLUMN "cpu"`);
  }
}
