import { PATRONI_REST_PORT } from './databases.driver';

/** What a member's Patroni says of its cluster. */
export interface PatroniCluster {
  /** role: leader, sync_standby or replica; state: running once its PostgreSQL runs (streaming, for a replica, in later Patronis). */
  members: Array<{ name: string; role: string; state: string; lag?: number | string }>;
}

/** A member Patroni lists as running its PostgreSQL: `running`, or `streaming` for a replica in later Patronis (an image may bring one). */
export function patroniMemberRuns(member: { state: string }): boolean {
  return member.state === 'running' || member.state === 'streaming';
}

/** GET /cluster of a member's Patroni: every member as the consensus store has it. */
async function patroniCluster(address: string): Promise<PatroniCluster> {
  const res = await fetch(`http://${address}:${PATRONI_REST_PORT}/cluster`, { signal: AbortSignal.timeout(1_000) });
  if (!res.ok) throw new Error(`patroni answered ${res.status}`);
  return (await res.json()) as PatroniCluster;
}

/** One standby as the leader's PostgreSQL sees it (pg_stat_replication; Patroni names each standby's connection after its member). */
interface PatroniStandby {
  application_name: string;
  state: string;
  sync_state: string;
}

/** GET /patroni of the leader: its replication, one entry per connected standby (none listed when none is). */
async function patroniReplication(address: string): Promise<PatroniStandby[]> {
  const res = await fetch(`http://${address}:${PATRONI_REST_PORT}/patroni`, { signal: AbortSignal.timeout(1_000) });
  if (!res.ok) throw new Error(`patroni answered ${res.status}`);
  return ((await res.json()) as { replication?: PatroniStandby[] }).replication ?? [];
}

/**
 * What Patroni says of an ha PostgreSQL's members, asked of the given
 * addresses in member order (member-<n> on the n-th; any one's /cluster
 * answers for all):
 * - `leader`: who holds the lead, if anyone;
 * - `syncStandby`: the running member the store names as synchronous
 *   standby, the only one that may take over;
 * - `whole`: the leader streams to every other member, and to that
 *   standby in sync. A standby just restarted runs before it streams, and
 *   while Patroni hands the synchronous role to another member the store
 *   names none: a failover then could not go on without loss, and only
 *   the old primary may take the lead.
 */
export async function patroniView(addresses: ReadonlyArray<string | null>): Promise<{
  listed: PatroniCluster['members'];
  answered: boolean;
  leader: string | null;
  syncStandby: string | null;
  whole: boolean;
}> {
  let answer: PatroniCluster | null = null;
  for (const address of addresses) {
    answer = address ? await patroniCluster(address).catch(() => null) : null;
    if (answer) break;
  }
  const listed = answer?.members ?? [];
  const leader = listed.find((m) => m.role === 'leader')?.name ?? null;
  const syncStandby = listed.find((m) => m.role === 'sync_standby' && patroniMemberRuns(m))?.name ?? null;
  const leaderAddress = leader === null ? null : addresses[Number(leader.slice('member-'.length))];
  const replication = syncStandby !== null && leaderAddress ? await patroniReplication(leaderAddress).catch(() => []) : [];
  const streams = (name: string) => replication.some((r) => r.application_name === name && r.state === 'streaming');
  const whole =
    syncStandby !== null &&
    replication.some((r) => r.application_name === syncStandby && r.sync_state === 'sync') &&
    addresses.every((_, n) => `member-${n}` === leader || streams(`member-${n}`));
  return { listed, answered: answer !== null, leader, syncStandby, whole };
}

/** A member's REST API block: on its own address, changes to the cluster under a password (reads, as the balancer's check, need none). */
export function patroniRestApi(address: string, password: string): string {
  const at = JSON.stringify(`${address}:${PATRONI_REST_PORT}`);
  return `restapi:
  listen: ${at}
  connect_address: ${at}
  authentication:
    username: patroni
    password: ${JSON.stringify(password)}`;
}

/**
 * The cluster's own settings (bootstrap.dcs, written to the store by the
 * member that bootstraps), as every provider runs them: synchronous
 * replication to one standby, slots, pg_rewind for a former primary, and
 * the leader's lease of `timing` (loop_wait + 2 * retry_timeout <= ttl, as
 * Patroni requires). docs/decisions.md, "PostgreSQL high availability".
 */
export function patroniDcs(timing: { ttl: number; loop_wait: number; retry_timeout: number }): string {
  return `  dcs:
    ttl: ${timing.ttl}
    loop_wait: ${timing.loop_wait}
    retry_timeout: ${timing.retry_timeout}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_node_count: 1
    failsafe_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        synchronous_commit: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB`;
}

/** postgresql.authentication: the roles Patroni connects as (pg_rewind's own where given, else the superuser), with their passwords. */
export function patroniAuthentication(passwords: { superuser: string; replication: string; rewind?: string }): string {
  const roles: Array<[string, string, string | undefined]> = [
    ['superuser', 'postgres', passwords.superuser],
    ['replication', 'replicator', passwords.replication],
    ['rewind', 'rewinder', passwords.rewind],
  ];
  return [
    '  authentication:',
    ...roles.flatMap(([kind, user, password]) => (password === undefined ? [] : [`    ${kind}:`, `      username: ${user}`, `      password: ${JSON.stringify(password)}`])),
  ].join('\n');
}

/**
 * postgresql.basebackup: a replica's clone asks for an immediate
 * checkpoint. Two members cloned at once otherwise wait for the second's
 * spread one (up to 90 % of checkpoint_timeout, over four minutes), past
 * the create's deadline.
 */
export const PATRONI_BASEBACKUP = `  basebackup:
    - checkpoint: fast`;
