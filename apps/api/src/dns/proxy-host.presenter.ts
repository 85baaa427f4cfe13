import { ProxyHost } from '@stratus/core';

/** The proxy host object (SPEC: "not shown"): the request's fields, the name, and where to reach it. */
export function presentProxyHost(p: ProxyHost, httpPort: number) {
  return {
    id: p.id,
    domain: p.hostname,
    instanceId: p.instanceId,
    forwardPort: p.forwardPort,
    url: `http://${p.hostname}${httpPort === 80 ? '' : `:${httpPort}`}/`,
    project_id: p.projectId,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
