import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Page } from '../http/cursor';

/*
 * The items of the catalog listings: CatalogService's presenters are typed
 * with these classes, and the OpenAPI document shows them.
 */

export class FlavorView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: 'integer' })
  vcpus: number;

  @ApiProperty({ type: 'integer' })
  ram_mb: number;

  @ApiProperty({ type: 'integer' })
  disk_gb: number;
}

export class SecurityGroupRuleView {
  @ApiProperty()
  id: string;

  @ApiProperty({ enum: ['ingress', 'egress'] })
  direction: 'ingress' | 'egress';

  @ApiProperty({ enum: ['tcp', 'udp', 'icmp', 'all'] })
  protocol: 'tcp' | 'udp' | 'icmp' | 'all';

  @ApiProperty({ required: false, description: 'single-port rules only' })
  port?: number;

  @ApiProperty({ required: false, description: 'absent: egress to anywhere, ingress from the same network' })
  cidr?: string;

  @ApiProperty({ required: false, description: 'the peer must be a member of this group; instead of a cidr' })
  remote_group_id?: string;
}

export class SecurityGroupView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  description: string;

  @ApiProperty({ type: [SecurityGroupRuleView] })
  rules: SecurityGroupRuleView[];
}

export class ImageView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  description: string;

  @ApiProperty({ enum: ['public', 'private'], description: "public: the provider's, for every project; private: a snapshot of one of this project's instances, for it alone" })
  visibility: 'public' | 'private';
}

export class NetworkView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ example: '10.0.0.0/24' })
  cidr: string;
}

export class KeypairView {
  @ApiProperty()
  name: string;

  @ApiProperty()
  fingerprint: string;
}

/** `{items, next_cursor}` of one item class, named after it (FlavorPage, ...). */
function PageOf<T>(item: Type<T>): Type<Page<T>> {
  class PageView implements Page<T> {
    @ApiProperty({ type: [item] })
    items: T[];

    @ApiProperty({ type: String, nullable: true, description: 'pass as ?cursor= for the next page; null on the last' })
    next_cursor: string | null;
  }
  Object.defineProperty(PageView, 'name', { value: `${item.name.replace(/View$/, '')}Page` });
  return PageView;
}

export const FlavorPage = PageOf(FlavorView);
export const SecurityGroupPage = PageOf(SecurityGroupView);
export const ImagePage = PageOf(ImageView);
export const NetworkPage = PageOf(NetworkView);
export const KeypairPage = PageOf(KeypairView);
