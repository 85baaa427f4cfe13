/**
 * What the edge writes to `gateway_routes.bind_error` when a port is held by
 * another process, and how the api tells those (a conflict over the port,
 * 409) from the edge failing to serve a route for any other reason (503).
 */

/** Something else had the port bound when the edge's HAProxy started. */
export const PORT_TAKEN = 'EADDRINUSE: another process on the gateway host had this port bound when the edge started';
/**
 * Something else bound the port while it was paused (a paused listener is
 * not listening, so a bind with SO_REUSEADDR, which most servers use,
 * succeeds). The edge tries again at each resync.
 */
export const PORT_BUSY = 'EADDRINUSE: another process on the gateway host has this port bound';

export function isPortConflict(bindError: string): boolean {
  return bindError.startsWith('EADDRINUSE');
}
