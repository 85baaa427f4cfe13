import { PATRONI_REST_PORT } from './databases.driver';

/** What a member's Patroni says of its cluster. */
export interface PatroniCluster {
  /** role: leader, sync_standby or replica; state: running once its PostgreSQL runs (streaming, for a replica, in later Patronis). */
  members: Array<{ name: string; role: string; state: string; lag?: number | string }>;
}

/** GET /cluster of a member's Patroni: every member as the consensus store has it. */
export async function patroniCluster(address: string): Promise<PatroniCluster> {
  const res = await fetch(`http://${address}:${PATRONI_REST_PORT}/cluster`, { signal: AbortSignal.timeout(1_000) });
  if (!res.ok) throw new Error(`patroni answered ${res.status}`);
  return (await res.json()) as PatroniCluster;
}
