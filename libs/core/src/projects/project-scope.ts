import { Principal } from './projects.service';

/**
 * The rows a request may act on: its token's project's, or, for an endpoint
 * SPEC.md marks public called without a token (allowed only while
 * PUBLIC_ENDPOINTS_REQUIRE_AUTH is off), every project's.
 */
export function projectScope(principal: Principal | undefined): { projectId?: string } {
  return principal ? { projectId: principal.projectId } : {};
}
