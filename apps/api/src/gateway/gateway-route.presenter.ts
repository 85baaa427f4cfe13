import { GatewayRoute } from '@stratus/core';

/** The route object (SPEC: "not shown"): the request's fields plus where it listens and since when. */
export function presentRoute(r: GatewayRoute, host: string) {
  return {
    id: r.id,
    port: r.port,
    protocol: r.protocol,
    targetIp: r.targetIp,
    targetPort: r.targetPort,
    certificate_id: r.certificateId,
    tls: r.certificateId !== null,
    host,
    status: r.boundAt ? 'active' : 'pending',
    project_id: r.projectId,
    created_at: r.createdAt.toISOString(),
  };
}
