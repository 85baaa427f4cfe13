import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last report of an edge process: what it holds, and when it last said so. */
@Entity('edge_nodes')
export class EdgeNode {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'int' })
  pid: number;

  /** Threads of each of its HAProxy processes. */
  @Column({ type: 'int' })
  threads: number;

  @Column({ name: 'http_bound', type: 'boolean' })
  httpBound: boolean;

  /** Whether its gateway HAProxy holds the port range (every port of it but `portsTaken`). */
  @Column({ name: 'gateway_bound', type: 'boolean', default: false })
  gatewayBound: boolean;

  /** Ports of the range something else had bound when the gateway HAProxy started: no route can have them. */
  @Column({ name: 'ports_taken', type: 'int', array: true, default: () => "'{}'" })
  portsTaken: number[];

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'heartbeat_at', type: 'timestamptz' })
  heartbeatAt: Date;
}
