import { ApiProperty } from '@nestjs/swagger';
import { ProxyHost } from '@stratus/core';

/** The proxy host object (SPEC: "not shown"): the request's fields, the name, and where to reach it. */
export class ProxyHostView {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'the public name' })
  domain: string;

  @ApiProperty({ type: String, nullable: true, description: 'the instance it forwards to; null once it moved to a cluster (`clusterId`)' })
  instanceId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "the cluster whose load balancer it forwards to (it moved there when the cluster was made from its instance, POST /v1/clusters/from-instance); null for an instance's",
  })
  clusterId: string | null;

  @ApiProperty()
  forwardPort: number;

  @ApiProperty({ description: 'where the edge serves it' })
  url: string;

  @ApiProperty()
  project_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The update-dns result: the instance's metadata after the merge. */
export class MetadataMergedView {
  @ApiProperty()
  instance_id: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, string>;
}

export function presentProxyHost(p: ProxyHost, httpPort: number): ProxyHostView {
  return {
    id: p.id,
    domain: p.hostname,
    instanceId: p.instanceId,
    clusterId: p.clusterId,
    forwardPort: p.forwardPort,
    url: `http://${p.hostname}${httpPort === 80 ? '' : `:${httpPort}`}/`,
    project_id: p.projectId,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
