import { EntityManager } from 'typeorm';

/** PostgreSQL NOTIFY channel the edge LISTENs on; the payload names what changed. */
export const EDGE_CHANNEL = 'stratus_edge';

/**
 * Tells the edge that routes, proxy hosts, certificates or load balancers changed. Called
 * inside the transaction that changed them: PostgreSQL delivers the
 * notification at commit, and never for a rollback.
 */
export async function notifyEdge(manager: EntityManager, what: 'routes' | 'hosts' | 'certificates' | 'balancers'): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [EDGE_CHANNEL, what]);
}

/**
 * NOTIFY channel the edge sends a load balancer's id on when it wrote a new
 * verdict for it (bound, or why not): what the local load-balancer driver's
 * `watch` hears, so a job waiting for a listener need not poll.
 */
export const BALANCER_STATUS_CHANNEL = 'stratus_balancer_status';
