import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/*
 * The provider's catalog, mirrored into PostgreSQL by the catalog sync so the
 * API answers lookups and validates references without calling the provider.
 */

@Entity('flavors')
export class Flavor {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  @Column({ type: 'int' })
  vcpus: number;

  @Column({ name: 'ram_mb', type: 'int' })
  ramMb: number;

  @Column({ name: 'disk_gb', type: 'int' })
  diskGb: number;
}

@Entity('images')
export class Image {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  /**
   * Null for the provider's images, which every project may boot; a
   * project's id for a snapshot image of one of its instances, which only
   * that project sees and boots. The catalog sync leaves these rows alone.
   */
  @Index('images_project')
  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId: string | null;
}

@Entity('networks')
export class Network {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'cidr' })
  cidr: string;
}

@Entity('keypairs')
export class Keypair {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  fingerprint: string;
}

export interface SecurityGroupRule {
  id: string;
  direction: 'ingress' | 'egress';
  protocol: 'tcp' | 'udp' | 'icmp' | 'all';
  port?: number;
  /** Absent: egress to anywhere, ingress from the same network. */
  cidr?: string;
  /** The peer must be a member of this group (by id); instead of a cidr. */
  remote_group_id?: string;
}

@Entity('security_groups')
export class SecurityGroup {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'jsonb' })
  rules: SecurityGroupRule[];
}
