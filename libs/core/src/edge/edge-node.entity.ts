import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last report of an edge process: what it holds, and when it last said so. */
@Entity('edge_nodes')
export class EdgeNode {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'int' })
  pid: number;

  @Column({ type: 'int' })
  workers: number;

  @Column({ name: 'http_bound', type: 'boolean' })
  httpBound: boolean;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'heartbeat_at', type: 'timestamptz' })
  heartbeatAt: Date;
}
